import { Counter, Gauge, type Registry } from 'prom-client';

/** What the cache reports; labels are the door only (never a key, account or model). */
export interface CacheObserver {
  hit(door: string): void;
  miss(door: string): void;
  stored(door: string, bytes: number): void;
  /** An answer too large to keep. */
  tooLarge(door: string): void;
  evicted(count: number): void;
  /** Bytes the cache holds now, as the store last counted them. */
  size(bytes: number): void;
}

/** The cache's Prometheus metrics, registered on the registry given. */
export class CacheMetrics implements CacheObserver {
  private readonly hits: Counter<'endpoint'>;
  private readonly misses: Counter<'endpoint'>;
  private readonly stores: Counter<'endpoint'>;
  private readonly storedBytes: Counter<'endpoint'>;
  private readonly oversize: Counter<'endpoint'>;
  private readonly evictions: Counter;
  private readonly bytes: Gauge;

  constructor(registry: Registry) {
    const registers = [registry];
    this.hits = new Counter({ name: 'farebox_cache_hits_total', help: 'Requests answered from the exact response cache', labelNames: ['endpoint'], registers });
    this.misses = new Counter({ name: 'farebox_cache_misses_total', help: 'Cache lookups that found no answer', labelNames: ['endpoint'], registers });
    this.stores = new Counter({ name: 'farebox_cache_stores_total', help: 'Answers stored in the response cache', labelNames: ['endpoint'], registers });
    this.storedBytes = new Counter({ name: 'farebox_cache_stored_bytes_total', help: 'Bytes of answers stored in the response cache', labelNames: ['endpoint'], registers });
    this.oversize = new Counter({ name: 'farebox_cache_too_large_total', help: 'Answers not stored because they exceed the entry size bound', labelNames: ['endpoint'], registers });
    this.evictions = new Counter({ name: 'farebox_cache_evictions_total', help: 'Entries evicted (oldest first) to keep the cache within CACHE_MAX_BYTES', registers });
    this.bytes = new Gauge({ name: 'farebox_cache_bytes', help: 'Bytes the response cache holds, as last counted', registers });
  }

  hit(door: string): void {
    this.hits.inc({ endpoint: door });
  }

  miss(door: string): void {
    this.misses.inc({ endpoint: door });
  }

  stored(door: string, bytes: number): void {
    this.stores.inc({ endpoint: door });
    this.storedBytes.inc({ endpoint: door }, bytes);
  }

  tooLarge(door: string): void {
    this.oversize.inc({ endpoint: door });
  }

  evicted(count: number): void {
    if (count > 0) this.evictions.inc(count);
  }

  size(bytes: number): void {
    this.bytes.set(bytes);
  }
}
