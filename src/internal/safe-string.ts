/**
 * `String(value)` that never throws: a body member such as `{"toString": 0}` or a null-prototype
 * object makes `String()` throw a TypeError, which must not replace the SDK's own error.
 */
export function safeString(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}
