/** Server instances and their leases (issue #21): see `registry.ts`. */
export {
  instancesOnOtherStores,
  liveInstanceCount,
  liveWorkerCount,
  registerInstance,
  serverInstances,
  waitForOlderInstances,
  DEFAULT_LEASE_MS,
  OlderVersionRunningError,
  type InstanceElsewhere,
  type InstanceOptions,
  type InstanceStanding,
  type OlderInstancesOptions,
  type ServerInstance,
} from './registry.ts';
export { leasedLocks, withLeasedLock, type LeasedLockOptions } from './leased-lock.ts';
