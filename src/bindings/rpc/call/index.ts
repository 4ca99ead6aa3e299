/** What every RPC gets, whichever path serves it (connect-node or the direct path): its caller, service parameters, context values and errors. */
export { rpcBinding, rpcCallScope, rpcRefusal } from "./call-scope.js";
export { deadlineOf, toConnectError } from "./connect-errors.js";
export { identificationKey, rpcContextValues } from "./context-values.js";
export { rpcServiceParams } from "./service-params.js";
