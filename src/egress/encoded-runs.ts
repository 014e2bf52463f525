/** How a run of text was encoded. */
export type RunEncoding = 'base64' | 'base64url' | 'hex';

/** A run of encoded text and what it decodes to. */
export interface DecodedRun {
  encoding: RunEncoding;
  text: string;
}

/** The bounds of decoding: what makes one scan cost the same whatever it is handed. */
export const DECODE_LIMITS = {
  /** Decoded bytes a run needs at least: the shortest well-known credential format is about this long. */
  minBytes: 15,
  /** A longer run is decoded in windows of this many characters, overlapping by `overlapChars`. */
  windowChars: 4096,
  overlapChars: 512,
  /** Runs (and windows) decoded per scan, at most. */
  maxCandidates: 64,
  /** Share of the decoded characters that must be printable text: binary (hashes, ids, images) is not read. */
  minPrintableShare: 0.9,
} as const;

/** Hex digits, long enough to hold `minBytes`. */
const HEX_RUN = new RegExp(`[0-9A-Fa-f]{${DECODE_LIMITS.minBytes * 2},}`, 'g');
/** base64 and base64url characters with trailing padding; then the same split at `/` and `+` (path segments, `a+b`). */
const BASE64_RUNS = [
  new RegExp(`[A-Za-z0-9+/_-]{${Math.ceil((DECODE_LIMITS.minBytes * 4) / 3)},}={0,2}`, 'g'),
  new RegExp(`[A-Za-z0-9_-]{${Math.ceil((DECODE_LIMITS.minBytes * 4) / 3)},}={0,2}`, 'g'),
];

/** A budget shared by the decodings of one scan (its readings, and runs inside runs): what is left, what was tried. */
export interface DecodeBudget {
  candidatesLeft: number;
  tried: Set<string>;
}

export function decodeBudget(): DecodeBudget {
  return { candidatesLeft: DECODE_LIMITS.maxCandidates, tried: new Set() };
}

/**
 * The runs of `text` that look like hex, base64 or base64url and decode to mostly printable text, decoded: what an
 * instruction to "encode the key first" would turn a credential into. Bounded: runs too short to hold a credential
 * are skipped, long ones are read in overlapping windows, at most `budget.candidatesLeft` are decoded, and output
 * that is not mostly printable text (a commit hash, a UUID, an image id) is dropped.
 */
export function decodedRuns(text: string, budget: DecodeBudget): DecodedRun[] {
  const found: DecodedRun[] = [];
  const runs = [
    ...[...text.matchAll(HEX_RUN)].map((match) => ({ run: match[0], hex: true, index: match.index })),
    ...BASE64_RUNS.flatMap((pattern) =>
      [...text.matchAll(pattern)].map((match) => ({ run: match[0], hex: false, index: match.index })),
    ),
  ];
  for (const { run, hex, index } of runs) {
    for (const window of windowsOf(run)) {
      const key = `${hex}:${window}`;
      if (budget.tried.has(key)) continue;
      budget.tried.add(key);
      if (budget.candidatesLeft <= 0) return found;
      budget.candidatesLeft--;
      const decoded = hex ? decodeHex(window) : decodeBase64(window, base64Kind(text, index, run));
      if (decoded) found.push(decoded);
    }
  }
  return found;
}

/** What one run of hex or base64(url) characters decodes to when that is mostly printable text, else undefined. */
export function decodeRun(run: string): DecodedRun | undefined {
  if (run.length > DECODE_LIMITS.windowChars) return undefined;
  return (
    (/^[0-9A-Fa-f]+$/.test(run) ? decodeHex(run) : undefined) ?? decodeBase64(run, base64Kind(run, 0, run))
  );
}

/** The run itself, or windows of it that overlap so that nothing shorter than the overlap falls between two. */
function windowsOf(run: string): string[] {
  const { windowChars, overlapChars } = DECODE_LIMITS;
  if (run.length <= windowChars) return [run];
  const windows: string[] = [];
  for (let start = 0; start < run.length - overlapChars; start += windowChars - overlapChars)
    windows.push(run.slice(start, start + windowChars));
  return windows;
}

function decodeHex(run: string): DecodedRun | undefined {
  // A run of odd length has a stray digit at one end or the other.
  const starts = run.length % 2 === 0 ? [0] : [0, 1];
  for (const start of starts) {
    const text = printable(Buffer.from(run.slice(start, start + run.length - (run.length % 2)), 'hex'));
    if (text !== undefined) return { encoding: 'hex', text };
  }
  return undefined;
}

/** Tried at the four alignments: a run may begin with characters that are not part of the encoded text. */
function decodeBase64(run: string, encoding: RunEncoding): DecodedRun | undefined {
  for (let start = 0; start < 4; start++) {
    const text = printable(Buffer.from(run.slice(start), 'base64'));
    if (text !== undefined) return { encoding, text };
  }
  return undefined;
}

/**
 * Which alphabet a run (at `index` in `text`) is in, judged on all the base64 characters around it (a path segment
 * is judged with its path): base64url has `-` or `_`; base64 has `+` or padding, or a length that is a multiple of
 * four; anything else is unpadded base64url. A `/` alone says nothing: in a URL it separates path segments.
 */
function base64Kind(text: string, index: number, run: string): RunEncoding {
  const before = /[A-Za-z0-9+/_-]*$/.exec(text.slice(0, index))?.[0] ?? '';
  const after = /^[A-Za-z0-9+/_-]*=*/.exec(text.slice(index + run.length))?.[0] ?? '';
  const around = `${before}${run}${after}`;
  if (/[-_]/.test(around)) return 'base64url';
  if (/[+=]/.test(around) || run.replace(/=+$/, '').length % 4 === 0) return 'base64';
  return 'base64url';
}

/** The bytes as UTF-8 text when enough of it is printable, else undefined. */
function printable(bytes: Buffer): string | undefined {
  if (bytes.length < DECODE_LIMITS.minBytes) return undefined;
  const text = bytes.toString('utf8');
  let shown = 0;
  let total = 0;
  for (const character of text) {
    total++;
    if (/[\P{C}\t\n\r]/u.test(character) && character !== '\uFFFD') shown++;
  }
  return shown >= total * DECODE_LIMITS.minPrintableShare ? text : undefined;
}
