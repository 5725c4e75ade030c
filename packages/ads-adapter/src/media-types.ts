/**
 * Looking up the vendor media type an Ads endpoint expects, from the {@link ADS_MEDIA_TYPES}
 * table, so that the 415 hint can name the media type.
 *
 * @packageDocumentation
 */
import { ADS_MEDIA_TYPES } from './hint-tables.js';
import { requestPath } from '@mcp-envelope/core/adapter';

function matches(template: string, path: string): boolean {
  const templateParts = template.split('/');
  const pathParts = path.split('/');
  if (templateParts.length !== pathParts.length) return false;
  return templateParts.every((part, index) =>
    part === '{id}' ? (pathParts[index] ?? '') !== '' : part.toLowerCase() === (pathParts[index] ?? '').toLowerCase(),
  );
}

/**
 * The vendor media type an Ads endpoint expects in `Content-Type` and `Accept`.
 *
 * @param method - the HTTP method, any case.
 * @param url - the request URL or path.
 * @returns e.g. `application/vnd.spCampaign.v3+json` for `POST /sp/campaigns/list`, or
 *   `undefined` when the endpoint is not in the table.
 */
export function expectedMediaType(method: string, url: string): string | undefined {
  const path = requestPath(url);
  const upper = method.toUpperCase();
  return ADS_MEDIA_TYPES.find(([entryMethod, template]) => entryMethod === upper && matches(template, path))?.[2];
}
