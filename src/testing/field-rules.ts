/**
 * Field validation as the service answers it: `422 { message, errors: { field: [messages] } }`
 * The service is a French-speaking Laravel application (its 404 messages are French too), so the mock words its rules the way Laravel's French locale does and builds
 * `message` the way Laravel does: the first error, then "(et N erreurs en plus)".
 */
import { isHttpUrl } from '../internal/http-url.js';
import { isRecord } from '../internal/is-record.js';

/** Field → messages, as in the body's `errors` member. */
export type FieldErrors = Record<string, string[]>;

/** One field's rules. `null` counts as absent (the service's optional fields are nullable). */
export interface FieldRule {
  required?: boolean;
  type: 'integer' | 'string' | 'email' | 'url' | 'object' | 'letters3' | 'digits';
  /** Minimum value (integers). */
  min?: number;
  /** Maximum length (strings) or value (integers). */
  max?: number;
  /** Allowed values. */
  in?: readonly string[];
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** `true` when a value counts as given (Laravel's `required`: not null, not an empty string). */
export function isGiven(value: unknown): boolean {
  return value !== undefined && value !== null && !(typeof value === 'string' && value.trim() === '');
}

/** Adds a message to a field. */
export function addError(errors: FieldErrors, field: string, message: string): void {
  const list = errors[field] ?? [];
  list.push(message);
  errors[field] = list;
}

/** Checks `input` against `rules`; field names are prefixed (`destination.phone`) for nested objects. */
export function validateFields(input: Record<string, unknown>, rules: Record<string, FieldRule>, prefix = ''): FieldErrors {
  const errors: FieldErrors = {};
  for (const [name, rule] of Object.entries(rules)) {
    const field = `${prefix}${name}`;
    const value = input[name];
    if (!isGiven(value)) {
      if (rule.required) addError(errors, field, `Le champ ${field} est obligatoire.`);
      continue;
    }
    const message = checkValue(field, value, rule);
    if (message) addError(errors, field, message);
  }
  return errors;
}

function checkValue(field: string, value: unknown, rule: FieldRule): string | null {
  switch (rule.type) {
    case 'integer':
      // Amounts are money in minor units: a JSON integer, never a float or a numeric string.
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) return `Le champ ${field} doit être un entier.`;
      if (rule.min !== undefined && value < rule.min) return `La valeur de ${field} doit être supérieure ou égale à ${rule.min}.`;
      if (rule.max !== undefined && value > rule.max) return `La valeur de ${field} doit être inférieure ou égale à ${rule.max}.`;
      return null;
    case 'object':
      return isRecord(value) ? null : `Le champ ${field} doit être un tableau.`;
    default:
      break;
  }
  if (typeof value !== 'string') return `Le champ ${field} doit être une chaîne de caractères.`;
  if (rule.max !== undefined && value.length > rule.max) return `Le texte de ${field} ne peut contenir plus de ${rule.max} caractères.`;
  if (rule.in && !rule.in.includes(value)) return `La valeur sélectionnée pour ${field} est invalide.`;
  switch (rule.type) {
    case 'letters3':
      return /^[A-Z]{3}$/.test(value) ? null : `Le champ ${field} doit contenir 3 lettres majuscules.`;
    case 'digits':
      return /^\d+$/.test(value) ? null : `Le champ ${field} ne doit contenir que des chiffres, sans « + ».`;
    case 'email':
      return EMAIL.test(value) ? null : `Le champ ${field} doit être une adresse e-mail valide.`;
    case 'url':
      return isHttpUrl(value) ? null : `Le format de l'URL de ${field} n'est pas valide.`;
    default:
      return null;
  }
}

/** Merges field errors into `into`. */
export function mergeErrors(into: FieldErrors, from: FieldErrors): FieldErrors {
  for (const [field, messages] of Object.entries(from)) for (const m of messages) addError(into, field, m);
  return into;
}

/** The 422 body: Laravel's `message` (first error and a count of the others) and `errors`. */
export function validationBody(errors: FieldErrors): { message: string; errors: FieldErrors } {
  const all = Object.values(errors).flat();
  const extra = all.length - 1;
  const suffix = extra > 0 ? ` (et ${extra} erreur${extra > 1 ? 's' : ''} en plus)` : '';
  return { message: `${all[0] ?? 'Les données fournies sont invalides.'}${suffix}`, errors };
}

/** `true` when no field has an error. */
export function isEmpty(errors: FieldErrors): boolean {
  return Object.keys(errors).length === 0;
}
