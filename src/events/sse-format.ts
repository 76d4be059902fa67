// The Server-Sent Events wire format (HTML Living Standard, "Server-sent events", 9.2.5-9.2.6):
// pure string functions, shared by the stream hub that writes events and the tests and
// clients that read them back.

/** One event: `event:` (its type), `id:` (omitted for events that move no cursor), `data:`. */
export interface SseMessage {
  readonly event: string;
  readonly id?: string;
  /** Already serialized (JSON); a newline in it becomes several data: lines. */
  readonly data: string;
}

/**
 * The frame of an event, ending in the blank line that dispatches it. Field values must not
 * hold CR or LF (they would end the field): ids and types are checked, data is split per line.
 */
export function sseFrame(m: SseMessage): string {
  if (/[\r\n]/.test(m.event) || (m.id !== undefined && /[\r\n\0]/.test(m.id)))
    throw new Error('SSE event type and id must be one line (and an id has no NUL)');
  let out = `event: ${m.event}\n`;
  if (m.id !== undefined) out += `id: ${m.id}\n`;
  for (const line of m.data.split(/\r\n|\r|\n/)) out += `data: ${line}\n`;
  return `${out}\n`;
}

/** A comment line: ignored by clients, it keeps proxies and load balancers from closing an idle stream. */
export const sseComment = (text: string): string => `: ${text.replace(/[\r\n]+/g, ' ')}\n\n`;

/** The reconnection delay a client should use (EventSource honours it). */
export const sseRetry = (ms: number): string => `retry: ${Math.max(0, Math.round(ms))}\n\n`;
