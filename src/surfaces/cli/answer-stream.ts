import {
  citationMarkerAt,
  isSourceLine,
  isSourcesHeading,
  partialCitationMarkerAt,
} from '../../agent/answer-citations.ts';

export interface AnswerStream {
  /** Streamed text of the model. */
  push(text: string): void;
  /** A turn that called tools ended: what it held back was thinking aloud, not sources: write it, start afresh. */
  endTurn(): void;
  /**
   * The stream is over: the text not written (from the turn's first citation marker on, or its sources section,
   * or the start of a line that could open one).
   */
  finish(): string;
}

/**
 * The model's text as it streams, up to its first citation marker (`[1]`) or its sources section (a `Sources:`
 * heading or a `[n] https://…` line): from there on, text is held back, so that `periscope ask` prints each marker
 * and each source once its quote is checked (an unverified one marked in the text itself). A line that could
 * still turn out to open the section, or text that could still become a marker, is held until it cannot;
 * everything else is written as it comes. A turn that calls tools writes what it held: that was thinking aloud.
 */
export function createAnswerStream(write: (text: string) => void): AnswerStream {
  let pending = ''; // the start of the current line, not written yet
  let lineWritten = false; // part of the current line is written: it opens no section
  let held: string | undefined; // from the first citation marker or the section on, once either started
  let blanks = ''; // blank lines, written only when more text follows them (none before the section)
  let before = ''; // the last character written: `a[1]` is an index, not a marker

  function emit(text: string): void {
    if (blanks) write(blanks);
    blanks = '';
    write(text);
    if (text) before = text.slice(-1);
  }

  /** Where a marker (or, `partial`, the start of one at the end) starts in `text`, written text before it. */
  function markerIn(text: string, partial = false): number {
    const at = partial
      ? partialCitationMarkerAt(before + text)
      : citationMarkerAt(before + text, before.length);
    return at < before.length ? -1 : at - before.length;
  }

  /** Write `text` up to its first citation marker; from the marker on, it and `rest` are held. False: held. */
  function emitUpToMarker(text: string, rest: string): boolean {
    const at = markerIn(text);
    if (at === -1) {
      emit(text);
      return true;
    }
    if (at > 0) emit(text.slice(0, at));
    held = blanks + text.slice(at) + rest;
    blanks = '';
    pending = '';
    return false;
  }

  function drain(): void {
    while (pending !== '') {
      if (held !== undefined) {
        held += pending;
        pending = '';
        return;
      }
      const newline = pending.indexOf('\n');
      const line = newline === -1 ? pending : pending.slice(0, newline + 1);
      if (!lineWritten && (isSourceLine(line) || (newline !== -1 && isSourcesHeading(line)))) {
        held = blanks + pending;
        blanks = '';
        pending = '';
        return;
      }
      if (newline === -1) {
        if (!lineWritten && couldOpenSection(line)) return;
        const partial = markerIn(line, true);
        if (partial !== -1 && markerIn(line.slice(0, partial)) === -1) {
          // `… interpreter [1` may become a marker, `[1]` a link: what comes before it is written, the rest waits.
          if (partial > 0) emit(line.slice(0, partial));
          pending = line.slice(partial);
          lineWritten ||= partial > 0;
          return;
        }
        if (!emitUpToMarker(line, '')) return;
        pending = '';
        lineWritten = true;
        return;
      }
      if (!lineWritten && line.trim() === '') blanks += line;
      else if (!emitUpToMarker(line, pending.slice(newline + 1))) return;
      pending = pending.slice(newline + 1);
      lineWritten = false;
    }
  }

  return {
    push(text) {
      pending += text;
      drain();
    },
    endTurn() {
      const rest = blanks + (held ?? '') + pending;
      if (rest) write(rest);
      if (rest) before = rest.slice(-1);
      blanks = '';
      held = undefined;
      pending = '';
      lineWritten = false;
    },
    finish() {
      const rest = blanks + (held ?? '') + pending;
      blanks = '';
      held = undefined;
      pending = '';
      lineWritten = false;
      return rest;
    },
  };
}

/** Whether the start of a line may still become a sources heading or a `[n] https://…` line. */
function couldOpenSection(start: string): boolean {
  const text = start.replace(/^[ \t]*(?:#{1,6}[ \t]*|[-*][ \t]+)?(?:\*\*|__)?[ \t]*/, '');
  if (text === '') return true;
  if (/^\[\d{0,3}(?:\](?:\*\*)?:?(?:[ \t]+<?h?t?t?p?s?:?\/?\/?)?)?$/.test(text)) return true;
  const word = text.toLowerCase().replace(/[ \t]*:?[ \t]*(?:\*\*|__)?[ \t]*:?[ \t]*$/, '');
  return 'sources'.startsWith(word) || 'references'.startsWith(word);
}
