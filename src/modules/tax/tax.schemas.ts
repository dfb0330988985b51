import { Type, type Static, type TSchema } from 'typebox';
import { optionalDate, optionalString, requiredDecimal, requiredString } from '../../platform/schema/fields.js';

/** A code that names a jurisdiction: tax_jurisdictions.code and the area links share its length. */
export const JURISDICTION_CODE_LENGTH = 20;

/** An optional snapshot array: absent or null leaves the stored children alone, [] removes them all. */
function optionalSnapshot<T extends TSchema>(items: T, description: string) {
  return Type.Optional(Type.Unsafe<Array<Static<T>> | null>({ type: ['array', 'null'], items, description }));
}

export const JurisdictionRateSchema = Type.Object({
  taxGroupCode: requiredString(50),
  // Uncapped: some duties exceed 100 %. Stored as sent: 10.0 means 10 %.
  ratePercent: requiredDecimal({ minimum: 0 }),
  effectiveDate: optionalDate(),
}, { description: 'The rate of one tax group from effectiveDate on; no date means in effect since always' });

export const JurisdictionItemSchema = Type.Object({
  code: requiredString(JURISDICTION_CODE_LENGTH),
  description: optionalString(100),
  rates: optionalSnapshot(JurisdictionRateSchema,
    'A snapshot keyed on taxGroupCode + effectiveDate: rates stored but not sent are removed; [] removes all; not sent (or null) leaves them untouched. Keep past rates in the payload.'),
}, { description: 'Tax jurisdiction; code is its natural key' });

export const AreaItemSchema = Type.Object({
  code: requiredString(20),
  description: optionalString(100),
  jurisdictionCodes: optionalSnapshot(requiredString(JURISDICTION_CODE_LENGTH),
    'A snapshot: links stored but not sent are removed; [] removes all; not sent (or null) leaves them untouched. A jurisdiction not pushed yet may be named.'),
}, { description: 'Tax area; code is its natural key' });

export const GstPostingRateSchema = Type.Object({
  businessPostingGroup: requiredString(50),
  productPostingGroup: requiredString(50),
  ratePercent: requiredDecimal({ minimum: 0 }),
}, { description: 'The rate for one business/product posting-group pair' });

export const GstPostingRatesItemSchema = Type.Object({
  rates: Type.Array(GstPostingRateSchema, {
    description: 'Pairs sent are upserted; pairs not sent are kept (not a snapshot); [] changes nothing',
  }),
}, { description: 'GST posting rate matrix item; answered with the key "matrix" and one child per rate' });

export type JurisdictionRate = Static<typeof JurisdictionRateSchema>;
export type JurisdictionItem = Static<typeof JurisdictionItemSchema>;
export type AreaItem = Static<typeof AreaItemSchema>;
export type GstPostingRate = Static<typeof GstPostingRateSchema>;
export type GstPostingRatesItem = Static<typeof GstPostingRatesItemSchema>;
