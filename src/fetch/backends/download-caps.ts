import { parseContentType } from '../../content/content-type.ts';
import { DEFAULT_IMAGE_MAX_BYTES, describeOversizedImage, imageTypeOf } from '../../content/image.ts';
import { matchSignature } from '../../content/magic-bytes.ts';
import { DEFAULT_PDF_MAX_BYTES, hasPdfHeader, oversizedPdfError } from '../../content/pdf.ts';
import type { ContentLimits } from '../../content/types.ts';
import { isPeriscopeError } from '../../errors.ts';
import { throwForStatus } from '../../net/http-status.ts';
import type { ResponseHead } from '../../net/types.ts';
import { redactUrl } from '../../net/url-policy.ts';
import type { FetchedPage } from '../fetch-backend.ts';

/** Bytes of an oversized image kept for its header: JPEG can put an EXIF thumbnail and ICC profile before its size. */
const HEAD_BYTES = 256 * 1024;
/** Bytes looked at to tell an image or a PDF (PDF readers look for `%PDF-` in the first 1 024). */
const SNIFF_BYTES = 1024;

type Kind = 'image' | 'pdf' | 'other';

interface Limit {
  limitBytes: number;
  /** The option that sets it. */
  limitName: string;
}

/** A download stopped for being over its cap, with what was learnt of it. */
interface Oversized extends Limit {
  kind: 'image' | 'pdf';
  head: ResponseHead;
  /** The first bytes of the body (none when the declared length was refused before reading). */
  bytes: Uint8Array;
  declaredBytes?: number | undefined;
}

export interface DownloadCaps {
  /** For the request: the caller's signal, also aborted when a cap is reached. */
  signal: AbortSignal;
  onResponseHead(head: ResponseHead): void;
  onBodyChunk(chunk: Buffer): void;
  /**
   * After the download failed: an image over its cap becomes a described page, a PDF over its cap the
   * BODY_TOO_LARGE that names `fetch.pdfMaxBytes`; anything else is left to the caller (undefined).
   */
  settle(error: unknown, requestUrl: URL): FetchedPage | undefined;
  dispose(): void;
}

/**
 * Type-specific download caps on top of `network.maxBytes`: once the first bytes show an image (PNG, JPEG, GIF,
 * WebP) or a PDF, the download stops at `fetch.imageMaxBytes` or `fetch.pdfMaxBytes` — or, when the server declares
 * a length over the cap, as soon as the image's header is in (a PDF's first bytes say nothing useful). The bytes
 * read are kept only up to a header's worth.
 */
export function watchDownloadCaps(
  limits: Partial<ContentLimits> | undefined,
  callerSignal: AbortSignal,
): DownloadCaps {
  const caps: Record<'image' | 'pdf', Limit> = {
    image: { limitBytes: limits?.imageMaxBytes ?? DEFAULT_IMAGE_MAX_BYTES, limitName: 'fetch.imageMaxBytes' },
    pdf: { limitBytes: limits?.pdfMaxBytes ?? DEFAULT_PDF_MAX_BYTES, limitName: 'fetch.pdfMaxBytes' },
  };
  const controller = new AbortController();
  const follow = () => controller.abort(callerSignal.reason);
  if (callerSignal.aborted) follow();
  else callerSignal.addEventListener('abort', follow, { once: true });

  let head: ResponseHead | undefined;
  let declaredBytes: number | undefined;
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let receivedBytes = 0;
  let kind: Kind | undefined;
  let stopped: Limit | undefined;

  const keptHead = () => Buffer.concat(kept, keptBytes);
  const sniff = (): Kind | undefined => {
    const bytes = keptHead();
    if (imageTypeOf(bytes)) return 'image';
    // A PDF as the content sniffer sees one (the body starts with `%PDF-`), or one labelled so with the marker in
    // its first 1 024 bytes as PDF readers accept: an HTML page quoting "%PDF-" near its top is not capped as a PDF.
    const labelledPdf = parseContentType(head?.headers['content-type']).essence === 'application/pdf';
    if (matchSignature(bytes)?.kind === 'pdf' || (labelledPdf && hasPdfHeader(bytes))) return 'pdf';
    return bytes.length >= SNIFF_BYTES ? 'other' : undefined;
  };

  return {
    signal: controller.signal,
    onResponseHead(response) {
      head = response;
      const length = response.headers['content-length'];
      // A coded body's length counts wire bytes, not the image's.
      const coded = (response.headers['content-encoding'] ?? 'identity') !== 'identity';
      declaredBytes = !coded && length !== undefined && /^\d+$/.test(length) ? Number(length) : undefined;
    },
    onBodyChunk(chunk) {
      if (stopped || kind === 'other') return;
      receivedBytes += chunk.length;
      if (keptBytes < HEAD_BYTES) {
        const part = chunk.subarray(0, HEAD_BYTES - keptBytes);
        kept.push(part);
        keptBytes += part.length;
      }
      kind ??= sniff();
      if (kind !== 'image' && kind !== 'pdf') return;
      const cap = caps[kind];
      const headerIn = kind === 'pdf' || keptBytes >= Math.min(HEAD_BYTES, cap.limitBytes);
      const declaredOver = declaredBytes !== undefined && declaredBytes > cap.limitBytes;
      if (receivedBytes > cap.limitBytes || (declaredOver && headerIn)) {
        stopped = cap;
        controller.abort(new Error(`${cap.limitName} reached`));
      }
    },
    settle(error, requestUrl) {
      if (callerSignal.aborted || !head) return undefined;
      let limit = stopped;
      if (!limit && isPeriscopeError(error) && error.code === 'BODY_TOO_LARGE') {
        if (error.details.limit !== 'maxBytes') return undefined;
        limit = { limitBytes: Number(error.details.limitValue), limitName: 'network.maxBytes' };
      }
      if (!limit) return undefined;
      const bytes = keptHead();
      const found = kind ?? (bytes.length > 0 ? sniff() : declaredKind(head.headers['content-type']));
      if (found !== 'image' && found !== 'pdf') return undefined;
      return settleOversized({ kind: found, head, bytes, declaredBytes, ...limit }, requestUrl);
    },
    dispose() {
      callerSignal.removeEventListener('abort', follow);
    },
  };
}

/** With no body read, the declared type decides. */
function declaredKind(contentType: string | undefined): Kind | undefined {
  const { essence } = parseContentType(contentType);
  if (essence === 'application/pdf') return 'pdf';
  return /^image\/(?:png|x-png|apng|jpeg|jpg|pjpeg|gif|webp)$/.test(essence) ? 'image' : undefined;
}

function settleOversized(oversized: Oversized, requestUrl: URL): FetchedPage {
  const { head } = oversized;
  const url = new URL(requestUrl);
  url.username = '';
  url.password = '';
  throwForStatus({ ...head, url: url.href, finalUrl: head.url, body: new Uint8Array(), redirects: [] });
  if (oversized.kind === 'pdf') {
    throw oversizedPdfError({ ...oversized, totalBytes: oversized.declaredBytes, url: redactUrl(head.url) });
  }
  const mimeType = parseContentType(head.headers['content-type']).essence || 'application/octet-stream';
  const { text } = describeOversizedImage({
    head: oversized.bytes,
    mimeType,
    totalBytes: oversized.declaredBytes,
    limitBytes: oversized.limitBytes,
    limitName: oversized.limitName,
  });
  const contentType = imageTypeOf(oversized.bytes) ?? mimeType;
  return {
    url: url.href,
    finalUrl: head.url,
    status: head.status,
    content: { kind: 'image', contentType, charset: 'binary', extractor: 'image', text },
  };
}
