import { createHash } from 'node:crypto';

/** `sha256:<hex>` of a document's full extracted text (UTF-8): what a citation's `contentHash` names. */
export function contentHash(text: string): string {
  return `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;
}
