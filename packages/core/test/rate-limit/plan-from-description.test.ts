/**
 * Usage plans read from operation descriptions, and the converter attaching them to operations.
 */
import { describe, expect, it } from 'vitest';

import { convertOperations, rateLimitPlanFromDescription } from '../../src/openapi/index.js';

const table = (row: string, separator = '| ---- | ---- |'): string =>
  `Returns orders.\n\n**Usage Plan:**\n\n| Rate (requests per second) | Burst |\n${separator}\n${row}\n\nThe response header contains the plan.`;

describe('rateLimitPlanFromDescription', () => {
  it('reads rate and burst from the first row of the table', () => {
    expect(rateLimitPlanFromDescription(table('| 0.0167 | 20 |'))).toEqual({ ratePerSecond: 0.0167, burst: 20 });
    expect(rateLimitPlanFromDescription(table('| .5 | 30 |'))).toEqual({ ratePerSecond: 0.5, burst: 30 });
  });

  it('reads the last two cells of a row led by a label, and line breaks written as \\n', () => {
    expect(
      rateLimitPlanFromDescription(
        table('|Default| 5 | 10 |\n|Selling partner specific| Variable | Variable |', '| ---- | ---- | ---- |'),
      ),
    ).toEqual({ ratePerSecond: 5, burst: 10 });
    expect(
      rateLimitPlanFromDescription('| Rate (requests per second) | Burst |\\n| ---- | ---- |\\n| 2 | 6 |\\n\\nMore.'),
    ).toEqual({ ratePerSecond: 2, burst: 6 });
  });

  it('gives no plan for placeholders, zero rates, no table or no description', () => {
    expect(rateLimitPlanFromDescription(table('| n | n |'))).toBeUndefined();
    expect(rateLimitPlanFromDescription(table('| 0 | 5 |'))).toBeUndefined();
    expect(rateLimitPlanFromDescription(table('| 1 | 0 |'))).toBeUndefined();
    expect(rateLimitPlanFromDescription('Default rate: 0.0167 requests per second.')).toBeUndefined();
    expect(rateLimitPlanFromDescription(undefined)).toBeUndefined();
  });

  it('is attached by the converter from the whole description, even past the description cap', () => {
    const description = `${'x'.repeat(400)}\n\n${table('| 0.0167 | 20 |')}`;
    const [withPlan, without] = convertOperations(
      {
        openapi: '3.0.0',
        paths: {
          '/orders': { get: { operationId: 'getOrders', description, responses: {} } },
          '/items': { get: { operationId: 'getItems', description: 'No plan here.', responses: {} } },
        },
      },
      { operationDescriptionLimit: 100 },
    );
    expect(withPlan?.description?.length).toBeLessThanOrEqual(100);
    expect(withPlan?.rateLimit).toEqual({ ratePerSecond: 0.0167, burst: 20 });
    expect(without?.rateLimit).toBeUndefined();
  });
});
