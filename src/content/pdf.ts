import { PeriscopeError } from '../errors.ts';
import { formatBytes } from './image.ts';
import { stripInvisible } from './invisible-unicode.ts';
import { MAX_OUTLINE_ENTRIES, type OutlineEntry } from './outline.ts';

/** Pages read per document (`fetch.pdfMaxPages`); the rest are named as not read. */
export const DEFAULT_PDF_MAX_PAGES = 200;
/** PDF bytes downloaded and handed to the engine (`fetch.pdfMaxBytes`); a larger PDF is not read. */
export const DEFAULT_PDF_MAX_BYTES = 10_000_000;

export interface PdfOptions {
  maxPages: number;
  /** A larger PDF is BODY_TOO_LARGE before the engine loads. Default: no limit here (the download has one). */
  maxBytes?: number | undefined;
  signal?: AbortSignal | undefined;
}

export interface RenderedPdf {
  text: string;
  title?: string;
  pageCount: number;
  /** The PDF's bookmarks (its outline) that point into the pages read, with their offsets in `text`. */
  outline?: OutlineEntry[];
}

/** What is known of a PDF too large to read. */
export interface OversizedPdf {
  /** The whole size when known (declared or read), else undefined: "more than the limit". */
  totalBytes?: number | undefined;
  limitBytes: number;
  /** The option that sets the limit: `fetch.pdfMaxBytes` or `network.maxBytes`. */
  limitName: string;
  url?: string | undefined;
}

/** BODY_TOO_LARGE for a PDF over its byte limit, naming the limit and the option that raises it. */
export function oversizedPdfError(pdf: OversizedPdf): PeriscopeError {
  const size =
    pdf.totalBytes === undefined ? `more than ${formatBytes(pdf.limitBytes)}` : formatBytes(pdf.totalBytes);
  const exact = pdf.totalBytes !== undefined && size === formatBytes(pdf.limitBytes);
  const limit = exact ? `${pdf.limitBytes}-byte` : formatBytes(pdf.limitBytes);
  const shown = exact ? `${pdf.totalBytes} bytes` : size;
  return new PeriscopeError(
    'BODY_TOO_LARGE',
    `the PDF is ${shown}, over the ${limit} limit (${pdf.limitName}), so it was not read; raise ${pdf.limitName} to read it`,
    {
      details: {
        ...(pdf.url ? { url: pdf.url } : {}),
        mimeType: 'application/pdf',
        limit: pdf.limitName,
        limitValue: pdf.limitBytes,
        reason: 'pdf-bytes',
        ...(pdf.totalBytes === undefined ? {} : { declaredBytes: pdf.totalBytes }),
      },
    },
  );
}

type PdfEngine = typeof import('unpdf/pdfjs');
type PdfDocument = Awaited<ReturnType<PdfEngine['getDocument']>['promise']>;
type Matrix = number[];

let engine: Promise<PdfEngine> | undefined;

/**
 * PDF.js as built by unpdf (worker inlined and run in-process, no canvas, no network), imported on the
 * first PDF only: importing Periscope never loads it.
 */
function loadEngine(): Promise<PdfEngine> {
  engine ??= import('unpdf/pdfjs').catch((error: unknown) => {
    engine = undefined;
    throw new PeriscopeError('UNSUPPORTED_CONTENT', 'the PDF engine (unpdf) could not be loaded', {
      cause: error,
      details: { mimeType: 'application/pdf' },
    });
  });
  return engine;
}

/**
 * A PDF → its text, page by page: text items are joined into lines by their baseline and lines into
 * paragraphs by the spacing between them; a blank line separates pages. At most `maxPages` are read (the
 * text says which were left out). Text too small to see and invisible characters are left out. Encrypted,
 * image-only, damaged and truncated PDFs are `UNSUPPORTED_CONTENT`; nothing is rendered, no OCR is tried.
 */
export async function renderPdf(bytes: Uint8Array, options: PdfOptions): Promise<RenderedPdf> {
  const { signal } = options;
  if (options.maxBytes !== undefined && bytes.byteLength > options.maxBytes) {
    throw oversizedPdfError({
      totalBytes: bytes.byteLength,
      limitBytes: options.maxBytes,
      limitName: 'fetch.pdfMaxBytes',
    });
  }
  if (!hasPdfHeader(bytes)) {
    throw new PeriscopeError(
      'UNSUPPORTED_CONTENT',
      'the response is labelled as a PDF but is not one (no %PDF- header in its first 1 024 bytes)',
      { details: { mimeType: 'application/pdf' } },
    );
  }
  const pdfjs = await loadEngine();
  throwIfAborted(signal);
  const task = pdfjs.getDocument({
    data: new Uint8Array(bytes), // a copy, not a Buffer: PDF.js detaches the buffer it is given
    verbosity: 0, // errors only: PDF.js logs through console, which the stdio surfaces need clean
    isEvalSupported: false, // never compile font programs to JavaScript (CVE-2024-4367)
    disableFontFace: true,
    useSystemFonts: false,
    useWasm: false,
    useWorkerFetch: false,
    enableXfa: false,
    isOffscreenCanvasSupported: false,
    isImageDecoderSupported: false,
  });
  const cancel = () => void task.destroy();
  signal?.addEventListener('abort', cancel, { once: true });
  try {
    const document = await task.promise.catch((error: unknown) => {
      throw signal?.aborted ? aborted() : openError(error);
    });
    const pageCount = document.numPages;
    const readCount = Math.min(pageCount, Math.max(1, options.maxPages));
    const pages: string[] = [];
    for (let pageNumber = 1; pageNumber <= readCount; pageNumber += 1) {
      throwIfAborted(signal);
      pages.push(await readPage(document, pageNumber, pdfjs.Util.transform));
    }
    throwIfAborted(signal);
    if (pages.every((page) => page === '')) {
      throw new PeriscopeError(
        'UNSUPPORTED_CONTENT',
        `${noTextIn(readCount, pageCount)} (scanned pages?); OCR is not available`,
        { details: { mimeType: 'application/pdf', pageCount } },
      );
    }
    const parts = pages.map((page, index) => page || `[Page ${index + 1}: no text layer (a scanned image?)]`);
    const pageStarts: number[] = [];
    let offset = 0;
    for (const part of parts) {
      pageStarts.push(offset);
      offset += part.length + 2;
    }
    if (pageCount > readCount) parts.push(skippedNote(readCount, pageCount));
    const text = parts.join('\n\n');
    const title = await readTitle(document);
    const outline = await readOutline(document, text, pageStarts);
    return { text, ...(title ? { title } : {}), pageCount, ...(outline.length > 0 ? { outline } : {}) };
  } catch (error) {
    throw signal?.aborted ? aborted() : error;
  } finally {
    signal?.removeEventListener('abort', cancel);
    await task.destroy();
  }
}

function noTextIn(readCount: number, pageCount: number): string {
  if (readCount === pageCount) return 'the PDF has no text layer';
  return readCount === 1
    ? 'the first page of the PDF has no text layer'
    : `the first ${readCount} pages of the PDF have no text layer`;
}

/** PDF.js, like other readers, looks for the header in the first 1 024 bytes. */
export function hasPdfHeader(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 1024)).includes('%PDF-');
}

function skippedNote(readCount: number, pageCount: number): string {
  const skipped = pageCount - readCount === 1 ? `Page ${pageCount}` : `Pages ${readCount + 1}–${pageCount}`;
  return `[${skipped} not read: page limit ${readCount}]`;
}

/** Text set smaller than this (in points) is left out: no reader can see it, so it only hides things from people. */
const MIN_READABLE_POINTS = 2;

/** One page's text; a page PDF.js cannot read says so instead of failing the document. */
async function readPage(
  document: PdfDocument,
  pageNumber: number,
  multiply: (first: Matrix, second: Matrix) => Matrix,
): Promise<string> {
  try {
    const page = await document.getPage(pageNumber);
    const viewport = page.getViewport({ scale: 1 });
    const content = await page.getTextContent();
    page.cleanup();
    const items: PositionedText[] = [];
    for (const item of content.items) {
      if (!('str' in item) || item.str === '') continue;
      const [, , c = 0, d = 0, x = 0, y = 0] = multiply(viewport.transform, item.transform);
      const size = Math.hypot(c, d);
      if (size > 0 && size < MIN_READABLE_POINTS) continue;
      items.push({ text: item.str, x, y, width: item.width, height: size || item.height || 1 });
    }
    return layOut(items);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return `[Page ${pageNumber} could not be read: ${message}]`;
  }
}

/** A text run in viewport space: `y` is the baseline, growing downwards. */
interface PositionedText {
  text: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

interface Line {
  text: string;
  y: number;
  height: number;
  start: number;
  end: number;
}

/**
 * Runs (in content-stream order, which keeps columns apart) → lines → paragraphs. A run continues the line
 * when its baseline is within half a font height of it; a space is put in where the gap between two runs is
 * wider than a sixth of the font height. A blank line marks a paragraph: a line spacing clearly wider than
 * the page's usual one, or a jump back up the page (the next column).
 */
export function layOut(runs: readonly PositionedText[]): string {
  const lines: Line[] = [];
  for (const run of runs) {
    const line = lines.at(-1);
    if (line && Math.abs(run.y - line.y) <= Math.max(run.height, line.height) / 2) {
      const gap = Math.max(run.x - line.end, line.start - (run.x + run.width));
      if (gap > Math.min(run.height, line.height) / 6 && !/\s$/.test(line.text) && !/^\s/.test(run.text)) {
        line.text += ' ';
      }
      line.text += run.text;
      line.start = Math.min(line.start, run.x);
      line.end = Math.max(line.end, run.x + run.width);
    } else {
      lines.push({ text: run.text, y: run.y, height: run.height, start: run.x, end: run.x + run.width });
    }
  }
  const spacing = usualLineSpacing(lines);
  let text = '';
  let previous: Line | undefined;
  for (const line of lines) {
    const clean = cleanLine(line.text);
    if (clean === '') continue;
    if (previous) {
      const gap = line.y - previous.y;
      text += gap <= 0 || gap > spacing * 1.25 ? '\n\n' : '\n';
    }
    text += clean;
    previous = line;
  }
  return text;
}

/** The page's ordinary distance between baselines: the lower quartile of the gaps, at least a font height. */
function usualLineSpacing(lines: readonly Line[]): number {
  const gaps = lines
    .slice(1)
    .map((line, index) => line.y - lines[index]!.y)
    .filter((gap) => gap > 0)
    .sort((a, b) => a - b);
  const heights = lines.map((line) => line.height).sort((a, b) => a - b);
  const fontHeight = heights[Math.floor(heights.length / 2)] ?? 0;
  return Math.max(gaps[Math.floor(gaps.length / 4)] ?? 0, fontHeight);
}

/** Invisible and control characters out, runs of spaces (and no-break spaces) as one. */
function cleanLine(text: string): string {
  return stripInvisible(text)
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '')
    .replace(/[ \t\u00a0]+/g, ' ')
    .trim();
}

/** The title from the XMP metadata (dc:title) or the document information (Title), as PDF.js's viewer does. */
async function readTitle(document: PdfDocument): Promise<string | undefined> {
  try {
    const { info, metadata } = await document.getMetadata();
    const candidates: unknown[] = [metadata?.get('dc:title'), (info as { Title?: unknown } | null)?.Title];
    for (const candidate of candidates) {
      if (typeof candidate !== 'string') continue;
      const title = cleanLine(candidate.replace(/\s+/g, ' '));
      if (title && !/^untitled$/i.test(title)) return title;
    }
  } catch {
    // Damaged metadata: the text is still worth having.
  }
  return undefined;
}

/** Outline nodes looked at, nested ones included: a hostile PDF can hold millions. */
const MAX_OUTLINE_NODES = 2_000;
const MAX_OUTLINE_TITLE_CHARS = 120;

type OutlineNode = Awaited<ReturnType<PdfDocument['getOutline']>>[number];

/**
 * The PDF's bookmarks as an outline: each entry at the line of its page where its title appears (else at the
 * start of the page), nested bookmarks one level deeper. Bookmarks into pages not read, to other files or
 * web links are left out; a damaged outline gives none.
 */
async function readOutline(document: PdfDocument, text: string, pageStarts: readonly number[]) {
  const outline: OutlineEntry[] = [];
  let visited = 0;
  const visit = async (nodes: readonly OutlineNode[], level: number): Promise<void> => {
    for (const node of nodes) {
      if (outline.length >= MAX_OUTLINE_ENTRIES || ++visited > MAX_OUTLINE_NODES) return;
      const title = cleanLine(String(node.title ?? '').replace(/\s+/g, ' '));
      const pageIndex = await destinationPage(document, node.dest);
      if (title && pageIndex !== undefined && pageIndex < pageStarts.length) {
        const start = pageStarts[pageIndex]!;
        const end = pageStarts[pageIndex + 1] ?? text.length;
        outline.push({
          level: Math.min(level, 6),
          title:
            title.length > MAX_OUTLINE_TITLE_CHARS
              ? `${title.slice(0, MAX_OUTLINE_TITLE_CHARS - 1)}…`
              : title,
          offset: lineOf(text, title, start, end),
        });
      }
      if (node.items.length > 0) await visit(node.items, level + 1);
    }
  };
  try {
    await visit((await document.getOutline()) ?? [], 1);
  } catch {
    // A damaged outline: the text is still worth having.
  }
  return outline;
}

/** The page index (0-based) a bookmark's destination points to, or undefined. */
async function destinationPage(
  document: PdfDocument,
  dest: OutlineNode['dest'],
): Promise<number | undefined> {
  const explicit = typeof dest === 'string' ? await document.getDestination(dest) : dest;
  const target = explicit?.[0];
  if (typeof target === 'number') return target;
  if (target && typeof target === 'object' && 'num' in target) return document.getPageIndex(target);
  return undefined;
}

/** The start of the line in text[start, end) holding `title`, or `start` when the title is not in the page's text. */
function lineOf(text: string, title: string, start: number, end: number): number {
  // Only the page's own text is searched: a title missing from it must not cost a scan of the rest of the document.
  const found = text.slice(start, end).indexOf(title);
  if (found === -1) return start;
  const at = start + found;
  const lineStart = text.lastIndexOf('\n', at - 1) + 1;
  return Math.max(lineStart, start);
}

function openError(error: unknown): PeriscopeError {
  const name = error instanceof Error ? error.name : '';
  const reason = error instanceof Error ? error.message : String(error);
  const message =
    name === 'PasswordException'
      ? 'the PDF is encrypted with a password, so its text cannot be read'
      : name === 'InvalidPDFException'
        ? `the PDF is damaged or truncated (${reason.replace(/\.$/, '')}), so no text could be read from it`
        : `the PDF could not be read (${reason.replace(/\.$/, '')})`;
  return new PeriscopeError('UNSUPPORTED_CONTENT', message, {
    cause: error,
    details: {
      mimeType: 'application/pdf',
      reason:
        name === 'PasswordException'
          ? 'pdf-encrypted'
          : name === 'InvalidPDFException'
            ? 'pdf-damaged'
            : 'pdf-unreadable',
    },
  });
}

function aborted(): PeriscopeError {
  return new PeriscopeError('ABORTED', 'The call was cancelled while the PDF was being read.');
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw aborted();
}
