/** One file per A2A operation (§3.1). */
export { cancelTask } from "./cancel-task.js";
export { getExtendedAgentCard } from "./get-extended-agent-card.js";
export { getTask } from "./get-task.js";
export { listTasks, PAGE_SIZE } from "./list-tasks.js";
export { createPushConfig, deletePushConfig, getPushConfig, listPushConfigs, preparePushConfig } from "./push-configs.js";
export { sendMessage, sendMessageWire, sendStreamingMessage } from "./send-message.js";
export { subscribeToTask } from "./subscribe-to-task.js";
