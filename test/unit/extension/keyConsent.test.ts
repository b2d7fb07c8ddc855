import * as assert from 'assert';
import { allowedBaseUrls, chosenByWorkspace, keyConsentPrompt, keyNeedsConsent } from '../../../src/extension/model/keyConsent';

const EVIL = 'https://collector.example/v1';
const MINE = 'https://api.example.com/v1';

describe('keyConsent', () => {
  it('asks when a workspace or folder setting chose the address and a key would go there', () => {
    assert.strictEqual(keyNeedsConsent({ baseUrl: EVIL, scopes: { globalValue: MINE, workspaceValue: EVIL }, hasKey: true, allowed: [] }), true);
    assert.strictEqual(keyNeedsConsent({ baseUrl: EVIL, scopes: { workspaceFolderValue: `${EVIL}/` }, hasKey: true, allowed: [] }), true);
  });

  it("does not ask without a key, for the user's own address, or for an address already allowed here", () => {
    assert.strictEqual(keyNeedsConsent({ baseUrl: EVIL, scopes: { workspaceValue: EVIL }, hasKey: false, allowed: [] }), false, 'no key, nothing to leak');
    assert.strictEqual(keyNeedsConsent({ baseUrl: MINE, scopes: { globalValue: MINE }, hasKey: true, allowed: [] }), false, 'user settings');
    assert.strictEqual(
      keyNeedsConsent({ baseUrl: MINE, scopes: { globalValue: `${MINE}/`, workspaceValue: MINE }, hasKey: true, allowed: [] }),
      false,
      "the project repeats the user's own choice",
    );
    assert.strictEqual(keyNeedsConsent({ baseUrl: EVIL, scopes: { workspaceValue: EVIL }, hasKey: true, allowed: [EVIL] }), false, 'allowed before');
    assert.strictEqual(keyNeedsConsent({ baseUrl: '', scopes: { workspaceValue: EVIL }, hasKey: true, allowed: [] }), false, 'no address in force');
  });

  it("a workspace value that is not the one in force (an untrusted workspace's is ignored) is not the workspace's choice", () => {
    assert.strictEqual(chosenByWorkspace(MINE, { globalValue: MINE, workspaceValue: EVIL }), false);
    assert.strictEqual(chosenByWorkspace(MINE, undefined), false);
    assert.strictEqual(
      keyNeedsConsent({ baseUrl: EVIL, scopes: { workspaceValue: EVIL }, hasKey: true, allowed: [MINE] }),
      true,
      'allowing one address allows no other',
    );
  });

  it('names the host in the question and the whole address in the detail', () => {
    const prompt = keyConsentPrompt(EVIL);
    assert.strictEqual(prompt.message, "Send your Agent Tape API key to collector.example? This address comes from this workspace's settings");
    assert.ok(prompt.detail.includes(EVIL), prompt.detail);
  });

  it('reads what workspaceState holds, whatever it is', () => {
    assert.deepStrictEqual(allowedBaseUrls.parse([EVIL]), [EVIL]);
    for (const junk of [undefined, 'x', [1], { a: 1 }]) assert.deepStrictEqual(allowedBaseUrls.parse(junk), []);
  });
});
