/** Types of `cluster-key-slot` (it ships none): Redis Cluster's CRC16 hash slot of a key. */
declare module 'cluster-key-slot' {
  /** The hash slot (0-16383) of a key, honouring `{hash tags}`. */
  function calculateSlot(key: string | Buffer): number;
  export default calculateSlot;
}
