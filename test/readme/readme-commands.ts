// The README's demo commands, as readme-curl.test.ts runs them against `npm start`.
//
// The convention (stated in the README under "Using it"):
// - Only fenced ```sh blocks of the "## Using it" part are read (up to the next "## " heading).
// - A command is a line plus its continuations (a line ending in `\`, `|` or `&&`).
// - It runs when it calls curl on the demo (`curl` and `localhost:8080` in its code; or the
//   simulator's control port, `127.0.0.1:19999` of `SIM_CONTROL_PORT=19999 npm start`), or is a
//   `sleep N` a reader also waits, a variable assignment alone on its line (`next="/..."`), a
//   helper started in the background (`... &`, e.g. a receiver the commands after it use), or a
//   `jq` on an answer saved by an earlier command (`jq '{movedReplicas}' plan.json`). Everything else (npm, kag, docker, jq on a saved file)
//   is shown, not run.
// - `(not on the demo)` (or `(not on the demo: why)`) in its trailing comment, or in the comment
//   lines right above it, keeps a curl command out (it needs a token, a real cluster, ...). Keep
//   it rare.
// - The status it must answer: a trailing comment that opens with one (`# 204`, `# 429, ...`),
//   else a parenthesis opening with one in the comment lines right above it ("(201 + Location)",
//   "(200, nothing changes)"). The last HTTP answer of the command must have it; every other
//   answer of the command (and every answer of a command that names none) must be 2xx.
// - A trailing comment that is JSON (`# {"rates":[],"replicas":[]}`), or else a comment line
//   right below the command that is JSON on its own, is what the command prints: its output must
//   hold every key named there with that value (arrays exactly).

export interface ReadmeCommand {
  /** 1-based line of the README where the command starts. */
  line: number;
  /** The command as written (continuation lines joined with newlines), comments included. */
  text: string;
  /** The status the README names for it, if any. */
  expectedStatus: number | null;
  /** A trailing comment that is JSON (`# {"rates":[],"replicas":[]}`): what it must print. */
  expectedJson?: unknown;
}

export interface ReadmeCommands {
  /** Commands the test runs, in order. */
  run: ReadmeCommand[];
  /** curl commands on the demo that carry the `(not on the demo)` marker. */
  skipped: ReadmeCommand[];
}

/** Opens a parenthesis: `(not on the demo)`, `(not on the demo: it needs a token)`. */
export const SKIP_MARKER = '(not on the demo';
/** The demo gateway, and its simulator's control port as `SIM_CONTROL_PORT=19999 npm start` opens it. */
export const DEMO_ADDRESSES = ['localhost:8080', '127.0.0.1:19999'] as const;

/** Splits a shell line into its code and its trailing comment (`#` at a word start, outside quotes). */
export function splitComment(line: string): { code: string; comment: string | null } {
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"') i++;
      continue;
    }
    if (c === "'" || c === '"') quote = c;
    else if (c === '\\') i++;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]))) return { code: line.slice(0, i), comment: line.slice(i) };
  }
  return { code: line, comment: null };
}

const continues = (code: string): boolean => /(\\|\||&&)\s*$/.test(code);

function statusFromTrailing(comment: string | null): number | null {
  const m = comment && /^#\s*([1-5]\d\d)\b/.exec(comment);
  return m ? Number(m[1]) : null;
}

function jsonFromTrailing(comment: string | null): unknown {
  const text = comment?.slice(1).trim() ?? '';
  if (!/^[[{]/.test(text)) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function statusFromAbove(comments: string[]): number | null {
  for (const c of comments) {
    const m = /\(([1-5]\d\d)\b/.exec(c);
    if (m) return Number(m[1]);
  }
  return null;
}

/** The fenced ```sh blocks of the "## Using it" part, with the README line of their first line. */
export function usingItBlocks(readme: string): { line: number; lines: string[] }[] {
  const all = readme.split('\n');
  const start = all.findIndex((l) => /^## Using it\s*$/.test(l));
  if (start < 0) throw new Error('README has no "## Using it" section');
  const blocks: { line: number; lines: string[] }[] = [];
  let current: { line: number; lines: string[]; indent: number } | null = null;
  for (let i = start + 1; i < all.length; i++) {
    const l = all[i];
    if (!current && /^## /.test(l)) break;
    const fence = /^(\s*)```(\S*)/.exec(l);
    if (fence) {
      if (current) {
        blocks.push({ line: current.line, lines: current.lines });
        current = null;
      } else if (fence[2] === 'sh') current = { line: i + 2, lines: [], indent: fence[1].length };
      else {
        // Another language's block: skip to its closing fence.
        while (++i < all.length && !/^\s*```\s*$/.test(all[i]));
      }
      continue;
    }
    if (current) current.lines.push(l.slice(Math.min(current.indent, l.length - l.trimStart().length)));
  }
  return blocks;
}

/** The commands of one block, with the comment lines right above each. */
function blockCommands(block: {
  line: number;
  lines: string[];
}): { command: ReadmeCommand; above: string[]; trailing: string | null; code: string }[] {
  const out: { command: ReadmeCommand; above: string[]; trailing: string | null; code: string }[] = [];
  let above: string[] = [];
  for (let i = 0; i < block.lines.length; i++) {
    const first = block.lines[i];
    if (first.trim() === '') {
      above = [];
      continue;
    }
    if (first.trimStart().startsWith('#')) {
      // An indented comment under a command continues that command's trailing comment.
      if (/^\s+#/.test(first) && out.length > 0 && above.length === 0) continue;
      above.push(first.trim());
      continue;
    }
    const startLine = block.line + i;
    const texts = [first];
    let { code, comment } = splitComment(first);
    const codes = [code];
    while (continues(code) && i + 1 < block.lines.length) {
      const next = block.lines[++i];
      texts.push(next);
      ({ code, comment } = splitComment(next));
      codes.push(code);
    }
    const allCode = codes.join('\n');
    const expectedStatus = statusFromTrailing(comment) ?? statusFromAbove(above);
    // Else a comment line right below it that is JSON on its own.
    const below = block.lines[i + 1]?.trim();
    const expectedJson = jsonFromTrailing(comment) ?? (below?.startsWith('#') ? jsonFromTrailing(below) : undefined);
    const command: ReadmeCommand = {
      line: startLine,
      text: texts.join('\n'),
      expectedStatus,
      ...(expectedJson !== undefined && { expectedJson }),
    };
    out.push({ command, above, trailing: comment, code: allCode });
    above = [];
  }
  return out;
}

export function readmeCommands(readme: string): ReadmeCommands {
  const run: ReadmeCommand[] = [];
  const skipped: ReadmeCommand[] = [];
  for (const block of usingItBlocks(readme)) {
    for (const { command, above, trailing, code } of blockCommands(block)) {
      const callsDemo = /(^|[\s$(`|;&])curl\s/.test(code) && DEMO_ADDRESSES.some((a) => code.includes(a));
      const isSleep = /^\s*sleep\s+\d+(\.\d+)?\s*$/.test(code);
      const isBackground = /[^&]&\s*$/.test(code);
      const isAssignment = /^\s*[A-Za-z_]\w*=("[^"]*"|'[^']*'|[^\s'"]*)\s*$/.test(code);
      const readsSavedAnswer = /^\s*jq\s[^|<>]*\s[\w.-]+\.json\s*$/.test(code);
      if (!callsDemo && !isSleep && !isBackground && !isAssignment && !readsSavedAnswer) continue;
      const marked = (trailing ?? '').includes(SKIP_MARKER) || above.some((c) => c.includes(SKIP_MARKER));
      (marked ? skipped : run).push(command);
    }
  }
  return { run, skipped };
}
