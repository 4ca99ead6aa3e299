/** Push notifications (§3.5.3, §13.2): the delivery worker and its SSRF guard. */
export { AddressPolicy, type AddressPolicyOptions } from "./address-policy.js";
export { PushDeliveryWorker, SEQ_HEADER, SEQ_METADATA_KEY, type PushOptions } from "./delivery-worker.js";
export { DEFAULT_RETRY, nextAttemptAt, type RetryPolicy } from "./retry-policy.js";
export { guardedLookup, pushUrlRefusal } from "./url-guard.js";
