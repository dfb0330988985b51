import { carrierWords } from '../freight/index.js';

/** The charge type of the freight line; lines stored before charge types were kept are freight. */
export const FREIGHT_CHARGE = 'Freight';

/**
 * A charge of a placed order in words, as the order page and the order's mail say it: freight as
 * the carrier and service it was quoted for (the order's shipping snapshot), "Road freight (carrier
 * OUTBACK, service STD)", not the stored description's codes; any other charge by its description.
 * An order whose snapshot lacks the carrier keeps its description.
 */
export function chargeWords(charge: { chargeType: string; description: string | null }, shipping: Readonly<Record<string, unknown>>): string {
  const { method, agentCode, serviceCode } = shipping;
  if (charge.chargeType === FREIGHT_CHARGE && typeof method === 'string' && typeof agentCode === 'string' && typeof serviceCode === 'string') {
    return carrierWords({ method, agentCode, serviceCode });
  }
  return charge.description || 'Charge';
}
