/** Server instances and their leases (issue #21): see `registry.ts`. */
export { registerInstance, serverInstances, DEFAULT_LEASE_MS, type InstanceOptions, type InstanceStanding, type ServerInstance } from './registry.ts';
export { leasedLocks, withLeasedLock, type LeasedLockOptions } from './leased-lock.ts';
