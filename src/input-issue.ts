import type { z } from 'zod';

/**
 * What an input value broke, as data: a surface words it for its own users (the CLI names the flag:
 * `--count must be 20 or less, got 50`) without reading the message.
 */
export type InputConstraint =
  /** A number (or a text's length, `of: 'characters'`) at most `maximum`. */
  | { kind: 'at-most'; maximum: number; of?: 'characters' | 'items' }
  /** A number (or a text's length) at least `minimum`. */
  | { kind: 'at-least'; minimum: number; of?: 'characters' | 'items' }
  | { kind: 'whole-number' }
  | { kind: 'one-of'; values: string[] }
  /** A text of a given form, described in words (`a two-letter country code such as us or de`). */
  | { kind: 'format'; description: string }
  /** Any other type mismatch: `expected` names the type (`string`, `boolean`, …). */
  | { kind: 'type'; expected: string }
  /** Not allowed together with the input field `with` (web_fetch's `startIndex` with `query`). */
  | { kind: 'excludes'; with: string }
  /** Given without the input field `with`, which it goes with (verify_citation's `start` and `end`). */
  | { kind: 'requires'; with: string }
  /** Out of order with the input field `with`: `relation` says how it must compare (`must not be earlier than`). */
  | { kind: 'order'; relation: string; with: string }
  | { kind: 'other' };

/** The input field a problem is about (`count`, `providerOptions.brave.safesearch`) and what it broke. */
export interface InputIssue {
  field: string;
  constraint: InputConstraint;
}

/** A zod issue → the field it names (`input` for the whole object) and the constraint it broke. */
export function inputIssueOf(issue: z.core.$ZodIssue): InputIssue {
  return { field: issue.path.map(String).join('.') || 'input', constraint: constraintOf(issue) };
}

function constraintOf(issue: z.core.$ZodIssue): InputConstraint {
  switch (issue.code) {
    case 'too_big':
      return { kind: 'at-most', maximum: Number(issue.maximum), ...lengthOf(issue.origin) };
    case 'too_small':
      return { kind: 'at-least', minimum: Number(issue.minimum), ...lengthOf(issue.origin) };
    case 'invalid_value':
      return { kind: 'one-of', values: issue.values.map(String) };
    case 'invalid_format':
      return { kind: 'format', description: issue.message };
    case 'invalid_type':
      return issue.expected === 'int' ? { kind: 'whole-number' } : { kind: 'type', expected: issue.expected };
    case 'custom': {
      // A schema's own rule (`.refine(…, { params: { excludes: 'query' } })`) names the field it rules out.
      // A rule that checks a text's form (`params: { format: 'a calendar date as YYYY-MM-DD' }`) describes it.
      // `requires` names the field it goes with; `order` with `with` how it compares with another field.
      const params = issue.params as
        | { excludes?: unknown; format?: unknown; requires?: unknown; order?: unknown; with?: unknown }
        | undefined;
      if (typeof params?.excludes === 'string') return { kind: 'excludes', with: params.excludes };
      if (typeof params?.requires === 'string') return { kind: 'requires', with: params.requires };
      if (typeof params?.order === 'string' && typeof params.with === 'string')
        return { kind: 'order', relation: params.order, with: params.with };
      return typeof params?.format === 'string'
        ? { kind: 'format', description: params.format }
        : { kind: 'other' };
    }
    default:
      return { kind: 'other' };
  }
}

function lengthOf(origin: string): { of?: 'characters' | 'items' } {
  if (origin === 'string') return { of: 'characters' };
  if (origin === 'array' || origin === 'set') return { of: 'items' };
  return {};
}
