/** An amount as the API writes it: integer minor units of a currency. */
export interface Amount {
  currency: string;
  valueMinor: number;
}

export const money = (currency: string, valueMinor: number): Amount => ({ currency, valueMinor });
export const eur = (valueMinor: number): Amount => money('EUR', valueMinor);
export const usd = (valueMinor: number): Amount => money('USD', valueMinor);
