import { Type, type Static, type TSchema, type TUnsafe } from 'typebox';

/**
 * `schema` or null, as one JSON Schema type list (`["string", "null"]`). The serializer answers
 * that with a null check; as `anyOf` it would run a validator on every value of every result.
 */
export function orNull<T extends TSchema & { type: string }>(schema: T, description: string): TUnsafe<Static<T> | null> {
  return Type.Unsafe<Static<T> | null>({ ...schema, type: [schema.type, 'null'], description });
}

export const nullableString = (description: string) => orNull(Type.String(), description);
