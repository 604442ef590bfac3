import { v7 } from 'uuid';

/**
 * A new record id: a time-ordered UUID (version 7), so records created within one clock tick still sort
 * in creation order behind their createdAt.
 */
export function newId(): string {
  return v7();
}
