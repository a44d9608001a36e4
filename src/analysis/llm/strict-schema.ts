/**
 * The result schema in the form OpenAI's strict structured outputs accept:
 * every property of an object required (an optional one may be null
 * instead), and no keyword the strict mode refuses. The server's grammar
 * gets this form; answers are turned back (nulls dropped) and validated
 * against the full schema with ajv, so nothing the full schema checks is
 * lost.
 */

/** Keywords strict mode refuses or ignores; ajv still checks them on our side. */
const DROPPED_KEYWORDS: ReadonlySet<string> = new Set(['$schema', '$id', 'minLength', 'minimum']);

type Schema = Record<string, unknown>;

export function strictSchema(schema: Schema): Schema {
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED_KEYWORDS.has(key)) continue;
    if (key === 'properties' && isObject(value)) {
      const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
      out.properties = Object.fromEntries(
        Object.entries(value).map(([name, property]) => {
          const strict = strictSchema(property as Schema);
          return [name, required.has(name) ? strict : nullable(strict)];
        }),
      );
      out.required = Object.keys(value);
    } else if (key === 'required') {
      // Written with the properties.
    } else out[key] = isObject(value) ? strictSchema(value) : value;
  }
  return out;
}

/** The value with every null-valued property removed, at any depth: a strict answer in the full schema's terms. */
export function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, item]) => item !== null)
      .map(([key, item]) => [key, withoutNulls(item)]),
  );
}

function nullable(schema: Schema): Schema {
  return typeof schema.type === 'string'
    ? { ...schema, type: [schema.type, 'null'] }
    : { anyOf: [schema, { type: 'null' }] };
}

function isObject(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
