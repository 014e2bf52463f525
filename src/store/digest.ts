import { hash } from 'node:crypto';

/** A short fixed-length stand-in for text of any length in store keys (SHA-256, base64url). */
export function digest(text: string): string {
  return hash('sha256', text, 'base64url');
}
