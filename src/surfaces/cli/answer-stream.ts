import { isSourceLine, isSourcesHeading } from '../../agent/answer-citations.ts';

export interface AnswerStream {
  /** Streamed text of the model. */
  push(text: string): void;
  /** A turn that called tools ended: what it held back was thinking aloud, not sources: write it, start afresh. */
  endTurn(): void;
  /** The stream is over: the text not written (a sources section, or the start of a line that could open one). */
  finish(): string;
}

/**
 * The model's text as it streams, less its sources section: from a `Sources:` heading or a `[n] https://…` line
 * on, text is held back, so that `periscope ask` can print the sources once each quote is checked. A line that
 * could still turn out to open the section is held until it cannot; everything else is written as it comes.
 */
export function createAnswerStream(write: (text: string) => void): AnswerStream {
  let pending = ''; // the start of the current line, not written yet
  let lineWritten = false; // part of the current line is written: it opens no section
  let held: string | undefined; // the section, once it started
  let blanks = ''; // blank lines, written only when more text follows them (none before the section)

  function emit(text: string): void {
    if (blanks) write(blanks);
    blanks = '';
    write(text);
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
        emit(line);
        pending = '';
        lineWritten = true;
        return;
      }
      if (!lineWritten && line.trim() === '') blanks += line;
      else emit(line);
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
