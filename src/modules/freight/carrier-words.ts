/**
 * How a quoted delivery is carried, in words: "Road freight (carrier OUTBACK, service STD)". The ERP
 * pushes only codes for carriers (shipping agents) and their services, in postcode routing and
 * freight rates, never their names, so the codes are shown, each said for what it is.
 */

const METHOD_WORDS: Readonly<Record<string, string>> = { Road: 'Road freight', Air: 'Air freight' };

/** The method in words ("Road freight"); one it does not know as "<method> freight". */
export const methodWords = (method: string): string => METHOD_WORDS[method] ?? `${method} freight`;

export function carrierWords(shipping: { method: string; agentCode: string; serviceCode: string }): string {
  return `${methodWords(shipping.method)} (carrier ${shipping.agentCode}, service ${shipping.serviceCode})`;
}
