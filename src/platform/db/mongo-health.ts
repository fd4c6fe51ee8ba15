import type { MongoClient, TopologyDescriptionChangedEvent } from 'mongodb';

/**
 * Whether MongoDB can take writes right now, as the driver's monitoring sees it (no query of
 * its own). Answers instantly, so requests that need a write can fail fast while it is down
 * instead of waiting out a server selection timeout.
 */
export class MongoHealth {
  private writableNow = true;

  constructor(client: MongoClient) {
    client.on('topologyDescriptionChanged', (event: TopologyDescriptionChangedEvent) => {
      this.writableNow = [...event.newDescription.servers.values()].some((s) => s.isWritable);
    });
  }

  /** True while a writable primary is known. */
  get writable(): boolean {
    return this.writableNow;
  }
}
