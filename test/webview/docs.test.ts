import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';

const root = path.resolve(__dirname, '../../..');
const read = (rel: string) => fs.readFileSync(path.join(root, rel), 'utf8');
const pages = ['README.md', ...fs.readdirSync(path.join(root, 'docs')).flatMap((f) => (f.endsWith('.md') ? [`docs/${f}`] : []))];

interface Contributes {
  configuration: { properties: Record<string, unknown> } | { properties: Record<string, unknown> }[];
  commands: { command: string; title: string; category?: string }[];
  menus: { commandPalette?: { command: string; when?: string }[] };
}
const contributes = (JSON.parse(read('package.json')) as { contributes: Contributes }).contributes;

/** GitHub's anchor for a heading: lower case, punctuation but `-` and `_` dropped, each space a `-`. */
const slug = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

/** The text outside fenced code blocks: a `#` or a link in a code sample is no heading or link. */
const prose = (text: string) => text.replace(/^```[\s\S]*?^```/gm, '');

function anchorsOf(rel: string): Set<string> {
  return new Set(Array.from(prose(read(rel)).matchAll(/^#{1,6} (.+)$/gm), (m) => slug(m[1])));
}

/**
 * The README is the Marketplace page: these hold what it promises a reader (a short page whose
 * links and pictures all resolve) and that the reference pages cover what the extension contributes.
 */
describe('the README and the reference pages in docs/', () => {
  it('the README is a page, not a manual: the two set-up commands at the top, at most 300 lines', () => {
    const lines = read('README.md').split('\n');
    assert.ok(lines.length <= 300, `${lines.length} lines`);
    const top = lines.slice(0, 20).join('\n');
    for (const command of ['npm ci && npm start', 'npm ci && npm test']) assert.ok(top.includes(command), `${command} in the first 20 lines`);
  });

  it('every relative link resolves to a file, and its #anchor to a heading there', () => {
    const broken: string[] = [];
    for (const page of pages) {
      for (const [, target] of prose(read(page)).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/i.test(target)) continue;
        const [file, anchor] = target.split('#');
        const rel = file === '' ? page : path.posix.normalize(path.posix.join(path.posix.dirname(page), file));
        if (!fs.existsSync(path.join(root, rel))) broken.push(`${page}: ${target} (no ${rel})`);
        else if (anchor !== undefined && rel.endsWith('.md') && !anchorsOf(rel).has(anchor))
          broken.push(`${page}: ${target} (no heading #${anchor} in ${rel})`);
      }
    }
    assert.deepStrictEqual(broken, []);
  });

  it("the README's pictures are PNG files of docs/images, the chat, inspector, replay, restore and blame among them, none over 400 KiB", () => {
    const images = Array.from(read('README.md').matchAll(/!\[[^\]]*\]\(([^)]+)\)/g), (m) => m[1]);
    assert.ok(
      images.every((i) => /^docs\/images\/[\w-]+\.png$/.test(i)),
      `vsce refuses SVG and http images, and the .vsix leaves docs/ out: ${images.join(', ')}`,
    );
    for (const name of ['chat', 'inspector-transcript-dark', 'inspector-transcript-light', 'inspector-anchors-dark', 'replay', 'restore', 'blame'])
      assert.ok(images.includes(`docs/images/${name}.png`), `${name}.png is shown`);
    for (const image of images) assert.ok(fs.statSync(path.join(root, image)).size <= 400 * 1024, `${image} is small`);
  });

  it('docs/settings.md names every setting the extension contributes', () => {
    const settings = read('docs/settings.md');
    const configuration = [contributes.configuration].flat();
    const names = configuration.flatMap((c) => Object.keys(c.properties));
    assert.ok(names.length > 0);
    assert.deepStrictEqual(
      names.filter((n) => !settings.includes(`\`${n}\``)),
      [],
    );
  });

  it('docs/extension.md names every command of the Command Palette', () => {
    const guide = read('docs/extension.md');
    const hidden = new Set((contributes.menus.commandPalette ?? []).filter((m) => m.when === 'false').map((m) => m.command));
    const titles = contributes.commands.filter((c) => !hidden.has(c.command)).map((c) => (c.category ? `${c.category}: ${c.title}` : c.title));
    assert.ok(titles.length > 0);
    assert.deepStrictEqual(
      titles.filter((t) => !guide.includes(t)),
      [],
    );
  });
});
