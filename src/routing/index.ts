/**
 * `switchyard-ai/routing`: the routing and availability primitives the gateway and operators build
 * on — the availability state machine and its store interface, the transition function, routing
 * decisions and model-name globs. Apps need none of these to route (`createSwitchyard` does it);
 * shared state stores are in `switchyard-ai/state`. `test/package.test.ts` pins this list.
 */
export { matchesGlob } from '../core/glob.ts';
export {
  type Admission,
  Availability,
  type AvailabilityOperation,
  type AvailabilityPolicy,
  type AvailabilityRecord,
  type AvailabilityStore,
  applyTransition,
  type CircuitState,
  createMemoryAvailabilityStore,
  defaultAvailabilityPolicy,
  type TransitionOutcome,
} from './availability.ts';
export {
  type RoutingAttempt,
  type RoutingDecision,
  routingDecision,
  routingDecisionOfError,
} from './decision.ts';
export type { RouteRequest } from './router.ts';
