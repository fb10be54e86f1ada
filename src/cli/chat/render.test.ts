/** The chat's pure pieces: Markdown block boundaries, wrapped rows, control sequences removed, the status line. */
import { describe, expect, it } from 'vitest';
import { costTable, statusLine, usd } from './format.ts';
import { sanitize } from '../terminal-text.ts';
import { AnswerRenderer, blockEnd, preloadMarkdown, rowsOf } from './render.ts';
import type { StoredTurn } from './store.ts';

const turn = (model: string, input: number, output: number, cost: number | undefined): StoredTurn => ({
  model,
  usage: { input, cacheRead: 0, cacheWrite: 0, output, reasoning: 0 },
  cost,
  at: '2026-11-26T10:00:00.000Z',
});

/** Half of a surrogate pair without its other half (what a terminal would show as U+FFFD). */
const loneHalf = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

describe('answer rendering', () => {
  it('a block ends after a blank line or a closing fence, never inside a code block', () => {
    expect(blockEnd('Hello')).toBe(0);
    expect(blockEnd('Hello\n\nWor')).toBe(7);
    expect(blockEnd('```ts\nconst a = 1;\n\nconst b = 2;\n')).toBe(0);
    expect(blockEnd('```ts\nconst a = 1;\n```\nafter')).toBe(23);
    expect(blockEnd('~~~\n```\n~~~\n')).toBe(12);
  });

  it('counts wrapped rows and strips terminal control sequences from model output', () => {
    expect(rowsOf('abc', 80)).toBe(1);
    expect(rowsOf('x'.repeat(81), 80)).toBe(2);
    expect(rowsOf('a\n\nb', 80)).toBe(3);
    expect(sanitize('ok\x1b[2J\x1b]0;title\x07\x9b31m\ttab\nline\r')).toBe('ok]0;title31m\ttab\nline');
  });

  it('shows an answer’s bidirectional overrides and isolates as \\u escapes, whatever deltas split it; right-to-left text and emoji as they are', () => {
    const text = 'ok\u202eevil\u2069 مرحبا שלום \u200f 😀👨‍👩‍👧 日本';
    for (const size of [1, 2, 3, text.length]) {
      let written = '';
      const renderer = new AnswerRenderer(
        { write: (chunk) => void (written += chunk), tty: false, columns: () => 80, rows: () => 24 },
        { reasoning: false },
      );
      // Deltas of `size` code units: an emoji's surrogates may fall in two of them.
      for (let at = 0; at < text.length; at += size)
        renderer.event({ type: 'text-delta', index: 0, delta: text.slice(at, at + size) } as never);
      renderer.finish();
      expect(written).toBe('ok\\u202eevil\\u2069 مرحبا שלום \u200f 😀👨‍👩‍👧 日本\n');
    }
  });

  it('writes a surrogate pair split between two deltas whole, answer and reasoning alike (each half alone prints as U+FFFD)', () => {
    const text = 'a😀b👨‍👩‍👧';
    for (const type of ['text-delta', 'reasoning-delta'] as const) {
      const chunks: string[] = [];
      const renderer = new AnswerRenderer(
        { write: (chunk) => void chunks.push(chunk), tty: false, columns: () => 80, rows: () => 24 },
        { reasoning: true },
      );
      for (const unit of text.split('')) renderer.event({ type, index: 0, delta: unit } as never);
      // The last delta a lone first half: given back at the end as it came, nothing lost.
      renderer.event({ type, index: 0, delta: '\ud83d' } as never);
      renderer.finish();
      expect(chunks.join('')).toContain(`${text}\ud83d`);
      expect(chunks.filter((chunk) => chunk !== '\ud83d').some((chunk) => loneHalf.test(chunk))).toBe(false);
    }
  });

  it('an answer or reasoning ending inside a CSI sequence has it cleaned at the end, never a raw ESC on the terminal', () => {
    for (const type of ['text-delta', 'reasoning-delta'] as const) {
      let written = '';
      const renderer = new AnswerRenderer(
        { write: (chunk) => void (written += chunk), tty: false, columns: () => 80, rows: () => 24 },
        { reasoning: true },
      );
      renderer.event({ type, index: 0, delta: 'hello\x1b[2' } as never);
      renderer.finish();
      expect(written).toBe('hello[2\n');
    }
  });

  it('counts rows by display columns: CJK and emoji take two, combining marks and ZWJ sequences join their base', () => {
    expect(rowsOf('你'.repeat(50), 80)).toBe(2); // 100 columns.
    expect(rowsOf('한국어'.repeat(14), 80)).toBe(2); // 84 columns.
    expect(rowsOf('👨‍👩‍👧'.repeat(15), 80)).toBe(1); // 30 columns from 120 code units.
    expect(rowsOf('e\u0301'.repeat(50), 80)).toBe(1); // 50 columns from 100 code units.
    expect(rowsOf(`${'🇫🇷'.repeat(40)}x`, 80)).toBe(2); // 81 columns.
    // 160 columns, but the wide character that does not fit in column 80 starts row 2: 3 rows.
    expect(rowsOf(`x${'你'.repeat(40)}${'x'.repeat(79)}`, 80)).toBe(3);
  });

  it('a tool name from the model (or an MCP server) reaches the terminal without its escape sequences; C1 controls go too', () => {
    let written = '';
    const renderer = new AnswerRenderer(
      { write: (text) => void (written += text), tty: false, columns: () => 80, rows: () => 24 },
      { reasoning: false },
    );
    const name = 'x\x1b]52;c;ZWNobyBwd25lZA==\x1b\\\x1b]0;PWNED\x07\x1b[2J\x1b[H\x9d8;;evil\x9c';
    renderer.event({ type: 'tool-call-start', index: 0, id: 'c1', name } as never);
    renderer.event({ type: 'tool-call-end', index: 0, id: 'c1', input: {} } as never);
    renderer.finish();
    expect(written).toContain('x]52;c;ZWNobyBwd25lZA==');
    // eslint-disable-next-line no-control-regex
    expect(written).not.toMatch(/[\x1b\x07\x80-\x9f]/);
  });

  it('on a pipe writes plain text: tool calls one line each, the result summarized, reasoning folded away', () => {
    let written = '';
    const renderer = new AnswerRenderer(
      { write: (text) => void (written += text), tty: false, columns: () => 80, rows: () => 24 },
      { reasoning: false },
    );
    renderer.event({ type: 'reasoning-delta', index: 0, delta: 'secret plan' } as never);
    renderer.event({ type: 'text-delta', index: 1, delta: 'Let me check.' } as never);
    renderer.event({ type: 'tool-call-start', index: 2, id: 'c1', name: 'weather' } as never);
    renderer.event({ type: 'tool-call-end', index: 2, id: 'c1', input: { city: 'Paris' } } as never);
    renderer.event({
      type: 'tool-end',
      result: {
        type: 'tool-result',
        callId: 'c1',
        name: 'weather',
        output: { type: 'text', text: '18 °C\nsunny' },
        isError: false,
      },
      isError: false,
    } as never);
    renderer.finish('⏹ interrupted');
    expect(written).toBe('Let me check.\n⚙ weather {"city":"Paris"}\n  ↳ 18 °C sunny\n⏹ interrupted\n');
  });

  it('an answer that was only folded reasoning ends its `thinking…` line, so the next line starts below it', () => {
    let written = '';
    const renderer = new AnswerRenderer(
      { write: (text) => void (written += text), tty: true, columns: () => 80, rows: () => 24 },
      { reasoning: false },
    );
    renderer.event({ type: 'reasoning-delta', index: 0, delta: 'hmm' } as never);
    renderer.finish();
    // eslint-disable-next-line no-control-regex
    expect(written).toMatch(/thinking… \(3 characters; \/reasoning on shows them\)\x1b\[22m\n$/);
  });
});

describe('links in an answer', () => {
  it('prints a Markdown link as its text and address, never a hidden terminal hyperlink (OSC 8), on a terminal that supports them', async () => {
    const forced = process.env.FORCE_HYPERLINK;
    process.env.FORCE_HYPERLINK = '1'; // what supports-hyperlinks reads for iTerm or GNOME's VTE
    try {
      await preloadMarkdown();
      let written = '';
      const renderer = new AnswerRenderer(
        { write: (text) => void (written += text), tty: true, columns: () => 80, rows: () => 24 },
        { reasoning: false },
      );
      renderer.event({
        type: 'text-delta',
        index: 0,
        delta:
          'Sign in at [https://accounts.example](https://evil.example/phish) or <https://plain.example>.\n\n',
      } as never);
      renderer.finish();
      expect(written).not.toContain('\x1b]8;');
      expect(written).toContain('https://evil.example/phish');
      expect(written).toContain('https://plain.example');
      expect(written).not.toContain('https://plain.example (https://plain.example)');
    } finally {
      if (forced === undefined) delete process.env.FORCE_HYPERLINK;
      else process.env.FORCE_HYPERLINK = forced;
    }
  });
});

describe('the status line and /cost', () => {
  it('shows the message’s tokens and cost, the total as the sum of the priced turns, and the context used', () => {
    const all = [
      turn('anthropic:claude-sonnet-4-5', 1000, 50, 0.00375),
      turn('openai:gpt-5-mini', 1200, 20, 0.00034),
    ];
    expect(statusLine({ model: 'gpt-mini', turns: all.slice(1), all, contextWindow: 400_000 })).toBe(
      'gpt-mini · in 1,200 out 20 · $0.000340 this turn · $0.004090 total · context 0% of 400k',
    );
    expect(
      statusLine({
        model: 'x',
        turns: [turn('x', 10, 1, undefined)],
        all: [turn('x', 10, 1, undefined)],
        contextWindow: 0,
      }),
    ).toBe('x · in 10 out 1 · $? this turn · $0.0000 total');
    expect(costTable(all).at(-1)).toMatch(/total\s+\$0\.004090$/);
    expect(usd(undefined)).toBe('$?');
  });

  it('an interrupted turn’s figures are estimates, marked ~; unpriced, it is $?, never $0', () => {
    const cut = { ...turn('openai:gpt-5-mini', 900, 40, 0.00031), interrupted: true };
    const earlier = turn('openai:gpt-5-mini', 100, 10, 0.0001);
    expect(statusLine({ model: 'gpt-mini', turns: [cut], all: [earlier, cut], contextWindow: 0 })).toBe(
      'gpt-mini · in ~900 out ~40 · ~$0.000310 this turn · ~$0.000410 total',
    );
    expect(statusLine({ model: 'gpt-mini', turns: [earlier], all: [earlier], contextWindow: 0 })).toBe(
      'gpt-mini · in 100 out 10 · $0.000100 this turn · $0.000100 total',
    );
    const unpriced = { ...turn('x', 900, 40, undefined), interrupted: true };
    expect(statusLine({ model: 'x', turns: [unpriced], all: [unpriced], contextWindow: 0 })).toBe(
      'x · in ~900 out ~40 · ~$? this turn · ~$0.0000 total',
    );
    expect(costTable([earlier, cut])).toEqual([
      '#  model              in   out  cost',
      '1  openai:gpt-5-mini  100  10   $0.000100',
      '2  openai:gpt-5-mini  900  40   ~$0.000310 (interrupted, estimated)',
      '   total                        ~$0.000410',
    ]);
  });
});
