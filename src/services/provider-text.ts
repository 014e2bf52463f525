import type { ProviderSettings } from './types.ts';

/** The value as a plain object, or undefined. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** The plain objects of an array (anything else in it is skipped); [] when it is not an array. */
export function records(value: unknown): Record<string, unknown>[] {
  if (!Array.isArray(value)) return [];
  return value.filter(
    (item): item is Record<string, unknown> =>
      typeof item === 'object' && item !== null && !Array.isArray(item),
  );
}

/** A string field, or undefined when absent, empty or not a string. */
export function optionalText(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** A finite number (numeric strings accepted, as some providers send counters as strings). */
export function optionalNumber(value: unknown): number | undefined {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) ? number : undefined;
}

/** A string setting from the provider's config extras (`cx`, `apiVersion`, …). */
export function stringSetting(settings: ProviderSettings, name: string): string | undefined {
  return optionalText(settings[name]);
}
