import * as assert from 'assert';
import { MAX_LINK_LENGTH, openableUrl } from '../../../src/protocol/openableLink';

describe('openable links (src/protocol/openableLink.ts)', () => {
  it('http, https and mailto open, as the URL parser reads them', () => {
    assert.strictEqual(openableUrl('https://Example.COM/a?b=1#c'), 'https://example.com/a?b=1#c');
    assert.strictEqual(openableUrl('HTTP://example.com'), 'http://example.com/');
    assert.strictEqual(openableUrl('mailto:me@example.com'), 'mailto:me@example.com');
    // Tabs and line breaks inside are dropped by the parser on both sides alike.
    assert.strictEqual(openableUrl('https://exa\nmple.com/'), 'https://example.com/');
  });

  it('no other scheme, no relative address, nothing too long', () => {
    for (const href of [
      'javascript:alert(1)',
      ' javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      'data:text/html,<b>x</b>',
      'file:///etc/passwd',
      'command:workbench.action.terminal.new',
      'vscode:extension/x',
      'vscode-webview://x/index.html',
      'ftp://example.com/',
      'src/a.ts',
      '//example.com/x',
      '',
    ])
      assert.strictEqual(openableUrl(href), null, href);
    assert.strictEqual(openableUrl(`https://example.com/${'a'.repeat(MAX_LINK_LENGTH)}`), null);
  });
});
