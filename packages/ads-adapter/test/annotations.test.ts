/**
 * The MCP annotations of Ads operations: the Ads APIs read, update and delete with POST, so the
 * path's verb decides where the method alone would mislead a client (a delete marked as only
 * adding, an update marked as only adding) and core's safe retries (CONTRACT.md "Safe retries").
 */
import { describe, expect, it } from 'vitest';

import { adsOperationAnnotations } from '../src/server/operation.js';

const READS = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };
const ADDS = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true };
const CHANGES = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };
const REPLACES = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true };

describe('adsOperationAnnotations', () => {
  it('reads a POST to a list or query path, and adds with a POST to a create path', () => {
    expect(adsOperationAnnotations('POST', '/sp/campaigns/list')).toEqual(READS);
    expect(adsOperationAnnotations('POST', '/adsApi/v1/query/campaigns')).toEqual(READS);
    expect(adsOperationAnnotations('POST', '/adsApi/v1/create/campaigns')).toEqual(ADDS);
    expect(adsOperationAnnotations('POST', '/sp/campaigns')).toEqual(ADDS);
  });

  it('marks a POST that deletes or updates as destructive, the delete path ending in the verb too', () => {
    expect(adsOperationAnnotations('POST', '/adsApi/v1/delete/campaigns')).toEqual(CHANGES);
    // Sponsored Products v3 deletes with POST /sp/campaigns/delete
    expect(adsOperationAnnotations('POST', '/sp/campaigns/delete')).toEqual(CHANGES);
    expect(adsOperationAnnotations('POST', '/adsApi/v1/update/adGroups')).toEqual(CHANGES);
  });

  it('keeps the hints of any other method, whatever the path says', () => {
    expect(adsOperationAnnotations('GET', '/v2/profiles')).toEqual(READS);
    expect(adsOperationAnnotations('PUT', '/sp/campaigns')).toEqual(REPLACES);
    expect(adsOperationAnnotations('DELETE', '/v2/sp/campaigns/{campaignId}')).toEqual(REPLACES);
    expect(adsOperationAnnotations('DELETE', '/sb/list/{listId}')).toEqual(REPLACES);
  });
});
