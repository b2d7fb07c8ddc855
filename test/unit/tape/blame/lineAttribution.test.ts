import * as assert from 'assert';
import fc from 'fast-check';
import type { FileEvent } from '../../../../src/tape/blame/fileChange';
import { attributeLines } from '../../../../src/tape/blame/lineAttribution';

const replace = (oldText: string, newText: string, origin: string | null, all = false): FileEvent<string> => ({
  change: { kind: 'replace', oldText, newText, all },
  origin,
});
const write = (content: string, origin: string): FileEvent<string> => ({ change: { kind: 'write', content }, origin });
const known = (content: string, origin: string, claimUnmatched: boolean): FileEvent<string> => ({
  change: { kind: 'known', content, claimUnmatched },
  origin,
});

describe('attributeLines', () => {
  it('gives each line its last writer and leaves lines from before the tape to nobody', () => {
    const now = 'import x\nconst a = 2;\nconst b = 3;\nexport {}\n';
    const events = [replace('const a = 1;', 'const a = 2;\nconst b = 3;', 'E1')];
    assert.deepStrictEqual(attributeLines(now, events), [null, 'E1', 'E1', null]);
  });

  it('does not claim the context an edit repeats', () => {
    const now = 'fn() {\n  body();\n}\n';
    assert.deepStrictEqual(attributeLines(now, [replace('fn() {\n  old();\n}', 'fn() {\n  body();\n}', 'E1')]), [null, 'E1', null]);
  });

  it('follows lines through a later edit of the same agent text', () => {
    const first = write('a\nb\nc\n', 'W');
    const second = replace('b', 'B1\nB2', 'E');
    assert.deepStrictEqual(attributeLines('a\nB1\nB2\nc\n', [first, second]), ['W', 'E', 'E', 'W']);
  });

  it('gives a line a person rewrote to nobody, and keeps the rest of the edit', () => {
    const events = [replace('x', 'one\ntwo\nthree', 'E')];
    assert.deepStrictEqual(attributeLines('one\nTWO by hand\nthree\n', events), ['E', null, 'E']);
  });

  it('keeps the origin of lines a person moved', () => {
    const events = [write('alpha\nbeta\ngamma\ndelta\n', 'W'), replace('beta', 'beta2', 'E')];
    assert.deepStrictEqual(attributeLines('beta2\nalpha\nnew\ngamma\ndelta\n', events), ['E', 'W', null, 'W', 'W']);
  });

  it('does not guess where text that occurs twice came from', () => {
    // The edit wrote `}` somewhere; two stand in the file and nothing else of the edit remains.
    assert.deepStrictEqual(attributeLines('a\n}\nb\n}\n', [replace('x', '}', 'E')]), [null, null, null, null]);
  });

  it('trusts text written inside a line only while every later change could be followed', () => {
    const events = [write('x = a\n', 'W'), replace('a', 'a + b', 'E1'), replace('b', 'b + c', 'E2')];
    assert.deepStrictEqual(attributeLines('x = a + b + c\n', events), ['E2']);
    // A person changed what E2 wrote: E1's `a + b` is still in the line, but the line is theirs.
    assert.deepStrictEqual(attributeLines('x = a + b + d\n', events), [null]);
    // Whole lines (indentation aside) read as the edit left them, whatever could not be followed.
    const whole = [replace('old', 'kept line', 'E1'), replace('gone', 'other', 'E2')];
    assert.deepStrictEqual(attributeLines('  kept line\nsomething else\n', whole), ['E1', null]);
  });

  it('reads a CRLF file and LF edits alike', () => {
    assert.deepStrictEqual(attributeLines('a\r\nnew\r\nc\r\n', [replace('b', 'new', 'E')]), [null, 'E', null]);
  });

  it("gives a turn the lines its checkpoints show it changed beyond its edits, and a person's later change to nobody", () => {
    const before = 'one\ntwo\nthree\n';
    const events = [known(before, 'T', true), replace('two', 'two!', 'E'), known('one\ntwo!\nthree\nby command\n', 'T', false)];
    assert.deepStrictEqual(attributeLines('one\ntwo!\nthree\nby command\nby hand\n', events), [null, 'E', null, 'T', null]);
  });

  it('stops at a write or a delete: nothing before it reaches the file', () => {
    const events = [replace('x', 'kept?', 'OLD'), { change: { kind: 'delete' as const }, origin: 'D' }, write('kept?\nfresh\n', 'W')];
    assert.deepStrictEqual(attributeLines('kept?\nfresh\nlater\n', events), ['W', 'W', null]);
  });

  it('claims every occurrence of a replace-all', () => {
    assert.deepStrictEqual(attributeLines('f(y)\ng\nf(y)\n', [replace('f(x)', 'f(y)', 'E', true)]), ['E', null, 'E']);
  });

  it('claims written text whose old text is unknown only where it stands once', () => {
    const events: FileEvent<string>[] = [{ change: { kind: 'written', newText: 'new line\n' }, origin: 'V' }];
    assert.deepStrictEqual(attributeLines('a\nnew line\nb\n', events), [null, 'V', null]);
  });

  it('has one origin per line of any file, the empty file none', () => {
    assert.deepStrictEqual(attributeLines('', [write('a\n', 'W')]), []);
    assert.strictEqual(attributeLines('a\nb', []).length, 2);
  });

  /**
   * Random histories of one file (lines written by agents' replaces and writes, our agent's turns
   * with their checkpoints and the commands they ran, people's edits and moves that no tape
   * records) against a model that keeps, line by line, who wrote it last. Every line's text is
   * unique, as most code lines are, so the answer is determined; lines that repeat are the
   * subject of the no-guessing examples above.
   */
  it('equals the last writer of each line, simulated independently', () => {
    fc.assert(
      fc.property(historyArb, ({ steps, base }) => {
        const sim = simulate(base, steps);
        assert.deepStrictEqual(attributeLines(sim.text, sim.events), sim.writers);
      }),
      { numRuns: 400 },
    );
  });
});

interface Line {
  text: string;
  writer: string | null;
}

type Step =
  | { op: 'replace'; at: number; len: number; fresh: number; keepFirst: boolean; keepLast: boolean; agent: boolean }
  | { op: 'fragment'; at: number; agent: boolean }
  | { op: 'delete'; at: number; len: number; agent: boolean }
  | { op: 'write'; keep: number }
  | { op: 'move'; at: number; len: number; to: number }
  | { op: 'turn'; inner: Step[] }
  | { op: 'recreate' };

const simpleStep: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    op: fc.constant('replace' as const),
    at: fc.nat(),
    len: fc.integer({ min: 1, max: 4 }),
    fresh: fc.integer({ min: 0, max: 3 }),
    keepFirst: fc.boolean(),
    keepLast: fc.boolean(),
    agent: fc.boolean(),
  }),
  fc.record({ op: fc.constant('fragment' as const), at: fc.nat(), agent: fc.boolean() }),
  fc.record({ op: fc.constant('delete' as const), at: fc.nat(), len: fc.integer({ min: 1, max: 3 }), agent: fc.boolean() }),
  fc.record({ op: fc.constant('move' as const), at: fc.nat(), len: fc.integer({ min: 1, max: 4 }), to: fc.nat() }),
);
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 8, arbitrary: simpleStep },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('write' as const), keep: fc.nat() }) },
  { weight: 1, arbitrary: fc.constant({ op: 'recreate' as const }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('turn' as const), inner: fc.array(simpleStep, { maxLength: 4 }) }) },
);
const historyArb = fc.record({ base: fc.integer({ min: 0, max: 12 }), steps: fc.array(stepArb, { maxLength: 14 }) });

/** Applies the steps to a file, keeping who wrote each line; returns the tape's events of it. */
function simulate(baseLines: number, steps: readonly Step[]): { text: string; writers: (string | null)[]; events: FileEvent<string>[] } {
  let fresh = 0;
  const freshLine = (): string => `  line <${++fresh}>`;
  let lines: Line[] = Array.from({ length: baseLines }, () => ({ text: freshLine(), writer: null }));
  const events: FileEvent<string>[] = [];
  let edits = 0;
  const textOf = (ls: readonly Line[]): string => ls.map((l) => `${l.text}\n`).join('');
  /** A change as an agent's replace would state it, on the tape only when an agent made it. */
  const record = (before: string, after: string, oldText: string, newText: string, origin: string | null): void => {
    assert.strictEqual(occurrences(before, oldText), 1, 'the generator states edits as a replace tool would accept them');
    assert.strictEqual(before.replace(oldText, newText), after);
    if (origin !== null) events.push(replace(oldText, newText, origin));
  };

  const apply = (step: Step, agentName: (agent: boolean) => string | null, commandWriter: string | null): void => {
    if (step.op === 'replace' || step.op === 'delete' || step.op === 'fragment') {
      if (lines.length === 0) return;
      const at = step.at % lines.length;
      const origin = agentName(step.agent);
      const writer = origin ?? commandWriter;
      const before = textOf(lines);
      if (step.op === 'fragment') {
        // An agent's replace of a line's text without its indentation (as agents write most of
        // theirs); a person's (or a command's) of its last `<n>` token alone, leaving the rest.
        const oldText = origin === null ? /<\d+>$/.exec(lines[at].text)![0] : lines[at].text.trimStart();
        const newText = origin === null ? `<${++fresh}>` : `${oldText} changed <${++fresh}>`;
        lines = lines.map((l, i) => (i === at ? { text: l.text.slice(0, -oldText.length) + newText, writer } : l));
        record(before, textOf(lines), oldText, newText, origin);
        return;
      }
      const len = Math.min(step.len, lines.length - at);
      const run = lines.slice(at, at + len);
      let replacement: Line[] = [];
      if (step.op === 'replace') {
        const made = Array.from({ length: step.fresh }, () => ({ text: freshLine(), writer }));
        replacement = [...(step.keepFirst ? [run[0]] : []), ...made, ...(step.keepLast && len > 1 ? [run[len - 1]] : [])];
        if (made.length === 0) replacement = [];
      }
      lines = [...lines.slice(0, at), ...replacement, ...lines.slice(at + len)];
      const runText = run.map((l) => l.text).join('\n');
      if (replacement.length > 0) record(before, textOf(lines), runText, replacement.map((l) => l.text).join('\n'), origin);
      else record(before, textOf(lines), `${runText}\n`, '', origin);
      return;
    }
    if (step.op === 'move') {
      if (lines.length === 0) return;
      const at = step.at % lines.length;
      const run = lines.slice(at, at + step.len);
      const rest = [...lines.slice(0, at), ...lines.slice(at + step.len)];
      const to = step.to % (rest.length + 1);
      lines = [...rest.slice(0, to), ...run, ...rest.slice(to)];
    }
  };

  for (const step of steps) {
    if (step.op === 'write') {
      const origin = `write ${++edits}`;
      const kept = lines.filter((_, i) => (step.keep >> (i % 8)) & 1).map((l) => ({ text: l.text, writer: origin }));
      lines = [...kept, { text: freshLine(), writer: origin }];
      events.push(write(textOf(lines), origin));
    } else if (step.op === 'recreate') {
      events.push({ change: { kind: 'delete' }, origin: `delete ${++edits}` });
      const origin = `write ${++edits}`;
      lines = [{ text: freshLine(), writer: origin }];
      events.push(write(textOf(lines), origin));
    } else if (step.op === 'turn') {
      const turn = `turn ${++edits}`;
      events.push(known(textOf(lines), turn, true));
      // In a turn an agent step is its apply_edit call; a step of nobody's is a command it ran.
      for (const inner of step.inner) apply(inner, (agent) => (agent ? `edit ${++edits}` : null), turn);
      events.push(known(textOf(lines), turn, false));
    } else {
      apply(step, (agent) => (agent ? `edit ${++edits}` : null), null);
    }
  }
  return { text: textOf(lines), writers: lines.map((l) => l.writer), events };
}

function occurrences(text: string, part: string): number {
  let n = 0;
  for (let at = text.indexOf(part); at !== -1; at = text.indexOf(part, at + 1)) n++;
  return n;
}
