import { z } from 'zod';

/**
 * A uuid of any version, for ids the hub made itself: anything else is a 400 naming the field,
 * never a database error. Not zod's uuid(), which refuses the default site's fixed id
 * (`00000000-0000-0000-0000-000000000001`, version nibble 0).
 */
export const anyUuid = (message = 'must be an id (uuid)') => z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, message);
