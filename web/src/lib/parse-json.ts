/**
 * The few response shapes the app reads, parsed at the boundary without a schema library (the
 * whole app must stay under 100 KB of initial JS): each returns the field or undefined.
 */

/** A non-blank string field of a JSON object, e.g. `token` of `{token}`. */
export function stringField(body: unknown, field: string): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const value: unknown = Reflect.get(body, field);
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}
