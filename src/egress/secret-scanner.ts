import { secretForms } from './known-secrets.ts';
import { SECRET_FORMATS } from './secret-formats.ts';
import { hasHighEntropyToken } from './token-entropy.ts';

/** What a scan found: the kind of secret and how to name it, never any of its characters. */
export interface SecretFinding {
  /** `known-secret`, `high-entropy`, or a format's kind (`github-token`, `jwt`, …). */
  kind: string;
  label: string;
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

/**
 * Looks for secrets in text about to leave (a search query, a URL): the values Periscope holds first (in every form
 * secretForms gives), then the well-known credential formats, then, when asked, long high-entropy tokens. The text
 * is read as given and percent-decoded (`%2D%2D%2D%2D%2DBEGIN`, `+` for space), twice over for double encoding.
 */
export function createSecretScanner(settings: SecretScannerSettings): SecretScanner {
  const forms = settings.secrets.flatMap(secretForms);
  const formats = SECRET_FORMATS.map((format) => ({ ...format, pattern: new RegExp(format.pattern, 'g') }));
  return {
    scan(text) {
      const texts = readings(text);
      if (forms.some((form) => texts.some((reading) => reading.includes(form)))) return KNOWN;
      for (const format of formats) {
        for (const reading of texts) {
          for (const match of reading.matchAll(format.pattern)) {
            if (format.accept?.(match, reading) ?? true) return { kind: format.kind, label: format.label };
          }
        }
      }
      // `+` stays itself here: in base64 it is a character of the token, not a space.
      if (settings.entropy && readings(text, false).some(hasHighEntropyToken)) return ENTROPY;
      return undefined;
    },
  };
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
