// The SSE frames the gateway writes (src/events/sse-format.ts) read back by the clients' parser
// (src/client/event-stream.ts), whatever the chunking; and the parser on what the HTML standard's
// "Interpreting an event stream" examples send (CRLF, CR, comments, id without data).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import fc from 'fast-check';
import { EventStreamParser, type StreamItem } from '../../src/client/event-stream.js';
import { sseComment, sseFrame, sseRetry } from '../../src/events/sse-format.js';

const events = (items: StreamItem[]) => items.flatMap((i) => (i.kind === 'event' ? [i.event] : []));

/** Feeds `text` in pieces cut at `cuts` (offsets), as a socket may deliver it. */
function parseInPieces(text: string, cuts: number[]): StreamItem[] {
  const parser = new EventStreamParser();
  const at = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  const out: StreamItem[] = [];
  let from = 0;
  for (const c of [...at, text.length]) {
    out.push(...parser.push(text.slice(from, c)));
    from = c;
  }
  return out;
}

it('every frame reads back as written (type, id, multi-line data), however the bytes are cut', () => {
  const name = fc.stringMatching(/^[a-z][a-z.-]{0,15}$/);
  const id = fc.option(fc.stringMatching(/^[\w:.-]{1,30}$/), { nil: undefined });
  const data = fc
    .array(
      fc.string({ unit: 'grapheme', maxLength: 20 }).map((s) => s.replace(/[\r\n]/g, '')),
      { minLength: 1, maxLength: 4 },
    )
    .map((lines) => lines.join('\n'));
  fc.assert(
    fc.property(
      fc.array(fc.record({ event: name, id, data }), { minLength: 1, maxLength: 6 }),
      fc.array(fc.nat(), { maxLength: 12 }),
      (msgs, cuts) => {
        const text =
          sseRetry(3000) +
          msgs
            .map(
              (m, i) =>
                (i % 2 ? sseComment('keep-alive') : '') +
                sseFrame({ event: m.event, ...(m.id !== undefined && { id: m.id }), data: m.data }),
            )
            .join('');
        const got = events(parseInPieces(text, cuts));
        let lastId: string | null = null;
        const want = msgs.map((m) => {
          if (m.id !== undefined) lastId = m.id;
          return { event: m.event, id: lastId, data: m.data };
        });
        assert.deepEqual(got, want);
      },
    ),
    { numRuns: 300 },
  );
});

it('CRLF and CR line ends, a comment, an id-only block, a field without a colon, an unknown field', () => {
  const parser = new EventStreamParser('before');
  const items = parser.push(': hello\r\n\r\ndata: a\r\ndata:b\r\rid: 7\n\nevent: x\ndata\nfoo: bar\n\nretry: 250\n\n');
  assert.deepEqual(items, [
    { kind: 'comment', text: 'hello' },
    { kind: 'event', event: { event: 'message', id: 'before', data: 'a\nb' } },
    { kind: 'event', event: { event: 'x', id: '7', data: '' } },
    { kind: 'retry', ms: 250 },
  ]);
  assert.equal(parser.lastEventId, '7', 'an id: line alone moves the cursor');
  // A CR at the end of a chunk may be the first half of CRLF: nothing is dispatched twice.
  const split = new EventStreamParser();
  assert.deepEqual(events([...split.push('data: x\r'), ...split.push('\n\r'), ...split.push('\n')]), [
    { event: 'message', id: null, data: 'x' },
  ]);
});

it('a frame refuses a type or id that would break the framing', () => {
  assert.throws(() => sseFrame({ event: 'a\nb', data: '{}' }));
  assert.throws(() => sseFrame({ event: 'a', id: 'x\ny', data: '{}' }));
  assert.equal(sseFrame({ event: 'a', data: 'one\ntwo' }), 'event: a\ndata: one\ndata: two\n\n');
});
