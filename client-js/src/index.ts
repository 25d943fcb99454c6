export {
  type Ack,
  type AckedEvent,
  type ConnectionState,
  PlaylineClient,
  type PlaylineClientOptions,
  PlaylineError,
  type PlaylineEvents,
  type WebSocketFactory,
  type WebSocketLike,
} from "./client.js";
export { type Clock, type RandomSource, type Scheduled } from "./clock.js";
export { type FlagStore, type KeyValueStorage, MemoryFlagStore, StorageFlagStore, defaultFlagStore } from "./flags.js";
export { Business, type Cursor, type HistoryRecord, type ItemKey, type PlayEvent } from "./gen/playline/v1/common_pb.js";
export { Error_Code as ErrorCode, type HistoryPage } from "./gen/playline/v1/stream_pb.js";
