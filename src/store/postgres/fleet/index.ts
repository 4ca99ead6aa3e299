/** The fleet on PostgreSQL: wake-ups, cancel requests, leases. */
export { DEFAULT_LEASE_MS, PgFleet, type PgFleetOptions } from "./pg-fleet.js";
