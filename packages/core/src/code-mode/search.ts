/**
 * The full-text index behind `search_tools`: one document per tool, with its name, description
 * and parameter names and descriptions, ranked by MiniSearch (BM25 with prefix and fuzzy
 * matching).
 *
 * @packageDocumentation
 */
import MiniSearch from 'minisearch';
import type { Tool } from '@modelcontextprotocol/server';
import { isRecord } from '@mcp-envelope/contract';

/** One ranked hit: the tool name and the first sentence of its description. */
export interface ToolSearchHit {
  readonly name: string;
  /** The first line or sentence of the description, at most 200 characters; `''` when it has none. */
  readonly description: string;
}

/** A search over a fixed set of tools. */
export interface ToolSearch {
  /**
   * The tools matching `query`, best first.
   *
   * @param query - free text (words of a name, a description or a parameter).
   * @param limit - the most hits returned.
   */
  search(query: string, limit: number): ToolSearchHit[];
}

interface ToolDocument {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly parameters: string;
  readonly allWords: string;
  readonly lastWords: string;
}

const MAX_LINE = 200;

/** The first line or sentence of a description, bounded. */
export function oneLine(description: string | undefined): string {
  if (description === undefined) return '';
  const line = description.trim().split('\n', 1)[0] ?? '';
  const sentence = /^(.*?[.!?])(?:\s|$)/.exec(line)?.[1] ?? line;
  return sentence.length > MAX_LINE ? `${sentence.slice(0, MAX_LINE - 3)}...` : sentence;
}

/** The top-level parameter names and descriptions of an input schema, as one text. */
function parameterText(schema: Tool['inputSchema']): string {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  return Object.entries(properties)
    .map(([name, property]) =>
      isRecord(property) && typeof property['description'] === 'string' ? `${name} ${property['description']}` : name,
    )
    .join('\n');
}

/** Words of identifiers too: `getOrderMetrics` and `get_order_metrics` both give get, order, metrics. */
function tokenize(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[\s\p{P}\p{S}]+/u)
    .filter((token) => token !== '');
}

/** The lower-cased words of a tool name, and those of its last `_` segment (the operation of `api_operation` names). */
function nameWords(name: string): { all: string; last: string } {
  const words = (text: string): string =>
    tokenize(text)
      .map((word) => word.toLowerCase())
      .join(' ');
  return { all: words(name), last: words(name.slice(name.lastIndexOf('_') + 1)) };
}

/** A query word found among a tool's own name words counts more than one found in its prose. */
function nameBoost(term: string, stored: Record<string, unknown> | undefined): number {
  const has = (key: string): boolean => {
    const words = stored?.[key];
    return typeof words === 'string' && words.split(' ').includes(term);
  };
  if (has('lastWords')) return 2;
  return has('allWords') ? 1.5 : 1;
}

/**
 * The most distinct words of a query searched: each word is a pass over the index (a one-letter
 * word, as a prefix, matches a good part of it), so a query of 250 letters took a server's thread
 * for a quarter of a second; the first words say what is wanted.
 */
export const MAX_QUERY_TERMS = 16;

/** The query's distinct words, lower-cased, at most {@link MAX_QUERY_TERMS}, as one query. */
function queryTerms(query: string): string {
  const words = new Set(tokenize(query).map((word) => word.toLowerCase()));
  return [...words].slice(0, MAX_QUERY_TERMS).join(' ');
}

/**
 * Indexes `tools` (listings as `tools/list` would send them).
 *
 * @param tools - the searchable tools.
 * @returns the search; building the index takes a few milliseconds per hundred tools.
 */
export function createToolSearch(tools: readonly Tool[]): ToolSearch {
  const index = new MiniSearch<ToolDocument>({
    fields: ['name', 'description', 'parameters'],
    storeFields: ['name', 'description', 'allWords', 'lastWords'],
    tokenize,
    searchOptions: {
      boost: { name: 3, description: 1.5 },
      boostDocument: (_id, term, stored) => nameBoost(term, stored),
      prefix: true,
      fuzzy: 0.2,
      weights: { prefix: 0.3, fuzzy: 0.2 },
      combineWith: 'OR',
    },
  });
  index.addAll(
    tools.map((tool) => {
      const words = nameWords(tool.name);
      return {
        id: tool.name,
        name: tool.name,
        description: tool.description ?? '',
        parameters: parameterText(tool.inputSchema),
        allWords: words.all,
        lastWords: words.last,
      };
    }),
  );
  return {
    search: (query, limit) =>
      index
        .search(queryTerms(query))
        .slice(0, limit)
        .map((hit) => ({ name: String(hit['name']), description: oneLine(String(hit['description'])) })),
  };
}
