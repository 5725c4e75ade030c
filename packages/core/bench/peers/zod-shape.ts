/**
 * The peer tools' schema in zod, in a module of its own so that the servers that do not use zod
 * do not pay for loading it.
 */
import { z } from 'zod';

/**
 * `TOOL_SCHEMA` (tool.ts) written in zod, as a user of McpServer or FastMCP writes it: the same
 * properties, bounds, enums and required keys (zod objects drop unknown keys, as the JSON Schema
 * allows them).
 */
export function zodToolShape(): Record<string, z.ZodType> {
  const shape: Record<string, z.ZodType> = {};
  for (let index = 0; index < 20; index += 1) {
    const required = index === 0 || index === 2;
    const field = [
      z.string().max(100).describe(`Name field ${index}.`),
      z.number().int().min(0).max(10000),
      z.array(z.string().min(1)).max(50),
      z.enum(['Pending', 'Unshipped', 'Shipped', 'Canceled']),
      z.boolean(),
    ][index % 5] as z.ZodType;
    const name = ['name', 'count', 'ids', 'status', 'flag'][index % 5] as string;
    shape[`${name}${index}`] = required ? field : field.optional();
  }
  return shape;
}
