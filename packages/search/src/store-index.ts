import type { Client, estypes } from '@elastic/elasticsearch';

/** A field a store keeps and returns but never searches: stored in `_source`, not indexed. */
export const KEPT_NOT_INDEXED = { type: 'object', enabled: false } as const satisfies estypes.MappingProperty;

const created = new WeakMap<Client, Map<string, Promise<void>>>();

/**
 * Creates a side index (a store read by id beside the catalogue) if it does not exist, once per
 * process and index; a failed attempt is forgotten so the next call tries again.
 */
export function ensureStoreIndex(
  client: Client,
  index: string,
  body: { mappings: estypes.MappingTypeMapping; settings: estypes.IndicesIndexSettings },
): Promise<void> {
  let byIndex = created.get(client);
  if (!byIndex) created.set(client, (byIndex = new Map<string, Promise<void>>()));
  let pending = byIndex.get(index);
  if (!pending) {
    pending = client.indices.create({ index, ...body }, { ignore: [400] }).then(async () => {
      // 400 is also "already exists": make sure it does, or let the next call try again.
      if (!(await client.indices.exists({ index }))) throw new Error(`cannot create ${index}`);
    });
    pending.catch(() => byIndex.delete(index));
    byIndex.set(index, pending);
  }
  return pending;
}
