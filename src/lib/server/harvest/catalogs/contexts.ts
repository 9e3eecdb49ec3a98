/**
 * The JSON-LD contexts the harvester knows without fetching anything. A catalogue that names any
 * other remote context is refused: fetching it would be a request to a host the moderator never
 * registered, from inside the parser, past the capture's address policy and limits. Our own
 * `/catalog.jsonld`, ckanext-dcat's and uData's catalogues carry their context inline and need none.
 */

const HYDRA = 'http://www.w3.org/ns/hydra/core#';

/**
 * The paging terms of Hydra's published context (http://www.w3.org/ns/hydra/context.jsonld), the one
 * paged collections commonly name, with the same definitions: only the subset a reader of
 * catalogue pages needs.
 */
const HYDRA_PAGING_CONTEXT = {
  '@context': {
    hydra: HYDRA,
    xsd: 'http://www.w3.org/2001/XMLSchema#',
    Collection: 'hydra:Collection',
    PartialCollectionView: 'hydra:PartialCollectionView',
    PagedCollection: 'hydra:PagedCollection',
    member: { '@id': 'hydra:member', '@type': '@id' },
    totalItems: { '@id': 'hydra:totalItems', '@type': 'xsd:integer' },
    view: { '@id': 'hydra:view', '@type': '@id' },
    first: { '@id': 'hydra:first', '@type': '@id' },
    last: { '@id': 'hydra:last', '@type': '@id' },
    next: { '@id': 'hydra:next', '@type': '@id' },
    previous: { '@id': 'hydra:previous', '@type': '@id' },
  },
};

/** Bundled contexts by the URLs documents name them with. */
export const BUNDLED_CONTEXTS: ReadonlyMap<string, unknown> = new Map([
  ['http://www.w3.org/ns/hydra/context.jsonld', HYDRA_PAGING_CONTEXT],
  ['https://www.w3.org/ns/hydra/context.jsonld', HYDRA_PAGING_CONTEXT],
]);
