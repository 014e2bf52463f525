import { type DecodeBudget, decodeBudget, decodedRuns, type RunEncoding } from './encoded-runs.ts';
import { secretForms } from './known-secrets.ts';
import { SECRET_FORMATS, type SecretFormat } from './secret-formats.ts';
import { hasHighEntropyToken } from './token-entropy.ts';

/** What a scan found: the kind of secret and how to name it, never any of its characters. */
export interface SecretFinding {
  /** `known-secret`, `high-entropy`, or a format's kind (`github-token`, `jwt`, …). */
  kind: string;
  label: string;
  /** How the text carried it when it was encoded: a well-known format found in what a run decodes to. */
  encoding?: RunEncoding;
}

export interface SecretScannerSettings {
  /** The literal values of the secrets Periscope holds (knownSecrets). */
  secrets: readonly string[];
  /** Also report long high-entropy tokens (`egress.secretScan.entropy`). */
  entropy: boolean;
}

export interface SecretScanner {
  /** The first secret in `text` (as given, and percent-decoded), or undefined. */
  scan(text: string): SecretFinding | undefined;
}

const KNOWN: SecretFinding = {
  kind: 'known-secret',
  label:
    'the value of a credential this deployment holds (a configured key or a KEY/TOKEN/SECRET/PASSWORD variable)',
};
const ENTROPY: SecretFinding = { kind: 'high-entropy', label: 'a long random token (a key or password)' };

/** Runs decoded inside runs decoded (base64 of hex, …), at most this deep. */
const MAX_DECODE_DEPTH = 2;

/**
 * Looks for secrets in text about to leave (a search query, a URL): the values Periscope holds first (in every form
 * secretForms gives), then the well-known credential formats, as they are and in what the text's base64, base64url
 * and hex runs decode to (src/egress/encoded-runs.ts, bounded), then, when asked, long high-entropy tokens. The text
 * is read as given and percent-decoded (`%2D%2D%2D%2D%2DBEGIN`, `+` for space), twice over for double encoding.
 */
export function createSecretScanner(settings: SecretScannerSettings): SecretScanner {
  const forms = settings.secrets.flatMap(secretForms);
  const formats = SECRET_FORMATS.map((format) => ({ ...format, pattern: new RegExp(format.pattern, 'g') }));
  return {
    scan(text) {
      const texts = readings(text);
      if (forms.some((form) => texts.some((reading) => reading.includes(form)))) return KNOWN;
      const found = formatIn(formats, texts) ?? encodedFormatIn(formats, text, decodeBudget(), 1);
      if (found) return found;
      // `+` stays itself here: in base64 it is a character of the token, not a space.
      if (settings.entropy && readings(text, false).some((reading) => hasHighEntropyToken(reading)))
        return ENTROPY;
      return undefined;
    },
  };
}

/** The first well-known format in any of the readings. */
function formatIn(formats: readonly SecretFormat[], texts: readonly string[]): SecretFinding | undefined {
  for (const format of formats) {
    for (const reading of texts) {
      for (const match of reading.matchAll(format.pattern)) {
        if (format.accept?.(match, reading) ?? true) return { kind: format.kind, label: format.label };
      }
    }
  }
  return undefined;
}

/** A well-known format in what an encoded run of the text decodes to (and, to MAX_DECODE_DEPTH, runs inside that). */
function encodedFormatIn(
  formats: readonly SecretFormat[],
  text: string,
  budget: DecodeBudget,
  depth: number,
): SecretFinding | undefined {
  // `+` stays itself: in base64 it is a character of the run, not a space. The most decoded reading first: there a
  // run is whole (`%3D` is its padding again).
  const runs = readings(text, false)
    .reverse()
    .flatMap((reading) => decodedRuns(reading, budget));
  for (const run of runs) {
    const found = formatIn(formats, readings(run.text));
    if (found) return { ...found, label: `${found.label}, ${run.encoding}-encoded`, encoding: run.encoding };
  }
  if (depth >= MAX_DECODE_DEPTH) return undefined;
  for (const run of runs) {
    const found = encodedFormatIn(formats, run.text, budget, depth + 1);
    if (found) return { ...found, label: `${found.label}, then ${run.encoding}-encoded` };
  }
  return undefined;
}

/** The text, and its percent-decodings (once and twice) when they differ; `+` as a space when `plusIsSpace`. */
function readings(text: string, plusIsSpace = true): string[] {
  const found = [text];
  let current = text;
  for (let round = 0; round < 2; round++) {
    const decoded = percentDecoded(current, plusIsSpace);
    if (decoded === current) break;
    found.push(decoded);
    current = decoded;
  }
  return found;
}

function percentDecoded(text: string, plusIsSpace: boolean): string {
  if (!/%[0-9a-f]{2}|\+/i.test(text)) return text;
  const spaced = plusIsSpace ? text.replace(/\+/g, ' ') : text;
  try {
    return decodeURIComponent(spaced);
  } catch {
    // A stray `%`: decode the escapes that are whole, byte by byte (UTF-8 sequences may come out as U+FFFD).
    return spaced.replace(/%([0-9a-f]{2})/gi, (_, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    );
  }
}
