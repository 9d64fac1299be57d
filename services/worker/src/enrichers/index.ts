import type { FeedIndex } from '../feed.ts';
import { aiEnricher, type AiModel } from './ai.ts';
import { auRetailerEnricher } from './au-retailer.ts';
import { keptSource } from './kept.ts';
import type { Enricher } from './types.ts';

/** Every enricher in the order a batch applies them (AU first: it never reads what AI writes). */
export function buildEnrichers(options: { feed: () => Promise<FeedIndex | undefined>; auStaleMs: number; model: AiModel }): Enricher[] {
  return [
    keptSource('community_taxonomy'),
    keptSource('operator_curated'),
    auRetailerEnricher({ feed: options.feed, staleMs: options.auStaleMs }),
    aiEnricher(options.model),
  ];
}
