import { z } from 'zod';
import { configSchema } from './schema.ts';

/** A JSON Schema node, as far as the config reference reads it. */
export interface JsonSchemaNode {
  [keyword: string]: unknown;
  description?: string;
  default?: unknown;
  type?: string | string[];
  properties?: Record<string, JsonSchemaNode>;
  additionalProperties?: boolean | JsonSchemaNode;
  items?: JsonSchemaNode;
  anyOf?: JsonSchemaNode[];
}

/** The key editors write to name the schema; the loader drops it before validating. */
export const SCHEMA_KEY = '$schema';

/**
 * The JSON Schema (draft 2020-12) of a config file, as written: every key optional, defaults and descriptions from
 * the zod schema, unknown keys refused. A `$schema` key is allowed at the top so editors can point at it. Anything
 * zod cannot express (a transform, a refinement) becomes `{}` rather than failing.
 */
export function configJsonSchema(): JsonSchemaNode {
  const generated = z.toJSONSchema(configSchema, {
    target: 'draft-2020-12',
    io: 'input',
    unrepresentable: 'any',
  }) as JsonSchemaNode;
  const { $schema, properties, ...rest } = generated;
  return {
    $schema,
    title: 'Periscope configuration',
    ...rest,
    properties: {
      [SCHEMA_KEY]: {
        type: 'string',
        description:
          'The JSON Schema this file follows (`periscope config schema`), for editors; Periscope ignores it.',
      },
      ...properties,
    },
  };
}
