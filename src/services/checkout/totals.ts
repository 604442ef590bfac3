import { formatMinor, type Money } from '../../domain/money';
import { ValidationError } from '../../domain/errors';
import type { CheckoutFulfillmentOption, CheckoutLineItem, CheckoutSelectedFulfillment, CheckoutTotal } from '../../db/models';
import { newId } from '../../util/ids';

// A session's amounts: its line items, fulfillment options and the totals that follow from them, checked as given.
function lineTotal(item: CheckoutLineItem): number {
  return item.unitAmount.valueMinor * item.quantity + (item.taxAmount?.valueMinor ?? 0);
}

/**
 * The amount and totals of a session: with line items, Σ(unitAmount × quantity) + Σ taxAmount + the selected
 * fulfillment's price; without, the base amount given at creation + the selected fulfillment's price.
 */
export function computeTotals(
  currency: string,
  lineItems: CheckoutLineItem[],
  baseMinor: number,
  selected: CheckoutSelectedFulfillment | null,
  locale?: string | null,
): { amountMinor: number; totals: CheckoutTotal[] } {
  const money = (valueMinor: number) => ({ currency, valueMinor });
  const total = (type: CheckoutTotal['type'], valueMinor: number, description?: string): CheckoutTotal => ({
    type,
    displayText: formatMinor(money(valueMinor), { locale: locale ?? 'en' }),
    amount: money(valueMinor),
    ...(description ? { description } : {}),
  });
  const shipping = selected?.price.valueMinor ?? 0;
  const totals: CheckoutTotal[] = [];
  let amountMinor: number;
  if (lineItems.length) {
    const subtotal = lineItems.reduce((s, i) => s + i.unitAmount.valueMinor * i.quantity, 0);
    const tax = lineItems.reduce((s, i) => s + (i.taxAmount?.valueMinor ?? 0), 0);
    totals.push(total('subtotal', subtotal, 'Items'));
    if (lineItems.some((i) => i.taxAmount)) totals.push(total('tax', tax, 'Tax'));
    amountMinor = subtotal + tax + shipping;
  } else {
    if (selected) totals.push(total('subtotal', baseMinor, 'Order'));
    amountMinor = baseMinor + shipping;
  }
  if (selected) totals.push(total('fulfillment', shipping, selected.title));
  totals.push(total('total', amountMinor, 'Total'));
  return { amountMinor, totals };
}

export interface LineItemInput extends Omit<CheckoutLineItem, 'id'> {
  id?: string;
}

function checkCurrency(m: Money | undefined, currency: string, path: string): void {
  if (m && m.currency !== currency)
    throw ValidationError.field(`${path}.currency`, `must be ${currency}, the currency of the session`, 'CURRENCY_MISMATCH');
}

export function buildLineItems(items: LineItemInput[], currency: string, path: string): CheckoutLineItem[] {
  const seen = new Set<string>();
  return items.map((item, i) => {
    checkCurrency(item.unitAmount, currency, `${path}[${i}].unitAmount`);
    checkCurrency(item.taxAmount, currency, `${path}[${i}].taxAmount`);
    const id = item.id ?? `li_${newId().replace(/-/g, '').slice(-16)}`;
    if (seen.has(id)) throw ValidationError.field(`${path}[${i}].id`, 'is used by another line item');
    seen.add(id);
    if (!Number.isSafeInteger(lineTotal({ ...item, id })))
      throw ValidationError.field(`${path}[${i}].quantity`, 'makes the line total too large');
    return { ...item, id };
  });
}

export function buildFulfillmentOptions(options: CheckoutFulfillmentOption[], currency: string, path: string): CheckoutFulfillmentOption[] {
  const seen = new Set<string>();
  options.forEach((o, i) => {
    checkCurrency(o.price, currency, `${path}[${i}].price`);
    if (seen.has(o.id)) throw ValidationError.field(`${path}[${i}].id`, 'is used by another fulfillment option');
    seen.add(o.id);
  });
  return options;
}

export function selectFulfillment(options: CheckoutFulfillmentOption[], optionId: string, path: string): CheckoutSelectedFulfillment {
  const option = options.find((o) => o.id === optionId);
  if (!option)
    throw ValidationError.field(
      `${path}.fulfillmentOptionId`,
      "is not one of the session's fulfillmentOptions",
      'UNKNOWN_FULFILLMENT_OPTION',
    );
  return { fulfillmentOptionId: option.id, type: option.type, title: option.title, price: option.price };
}

export function checkAmount(amountMinor: number, path: string): void {
  if (amountMinor < 1) throw ValidationError.field(path, 'the session total must be at least 1 minor unit');
  if (!Number.isSafeInteger(amountMinor)) throw ValidationError.field(path, 'the session total is too large');
}
