/**
 * How many rows `GET /api/v1/admin/audit?ids=` may name: an audit-review flag's rows, linked
 * from the review page. 200 ids of up to 19 digits stay within a 4 KB address; a bigger flag
 * links its user and span instead. A module of its own, importing nothing, because the
 * dashboard's scripts are bundled with it (ui/client/audit.ts, audit-review.ts).
 */
export const AUDIT_IDS_MAX = 200;
