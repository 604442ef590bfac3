import type { Connector } from './types';

/** The methods every connector has, and those it may have (the registry's callers ask whether it has them). */
const ALWAYS = ['authorize', 'capture', 'void', 'refund', 'payout', 'disputeEvidence', 'disputeAccept'] as const;
type Optional = 'lookup' | 'completeAction' | 'parseNotification' | 'checkCredentials';

/**
 * A connector as the registry holds it when its acquirer's library is heavy: the same methods, the library (and the
 * connector) loaded on the first call, not when the registry is (the CLI's start-up never needs it). `has` names the
 * optional methods the connector has, known without loading it; `checkCredentials`, when given, answers without
 * loading it either.
 */
export function lazyConnector(
  kind: string,
  load: () => Connector,
  options: { has: readonly Optional[]; checkCredentials?: Connector['checkCredentials'] },
): Connector {
  let loaded: Connector | undefined;
  const target = () => (loaded ??= load());
  const methods: Record<string, unknown> = { kind };
  for (const name of [...ALWAYS, ...options.has]) {
    methods[name] = (...args: unknown[]) => (target()[name] as (...a: unknown[]) => unknown).apply(target(), args);
  }
  if (options.checkCredentials) methods.checkCredentials = options.checkCredentials;
  return methods as unknown as Connector;
}
