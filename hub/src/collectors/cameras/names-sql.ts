/**
 * SQL for "the collector's configuration as names are looked up in it" (alerts/payload.ts
 * `cameraName`): the admin's `config` with the central cameras (removed ones too, so old
 * detections keep their name) appended to its `cameras` list as `{ id, name, timezone }`.
 * One expression, used wherever a detection is shown with its camera's name: search detail,
 * the live feed, alerts, the messaging bot.
 */
export function configWithCameraNames(collector: string): string {
  return `(${collector}.config || jsonb_build_object('cameras',
      (CASE WHEN jsonb_typeof(${collector}.config->'cameras') = 'array' THEN ${collector}.config->'cameras' ELSE '[]'::jsonb END)
      || COALESCE((SELECT jsonb_agg(jsonb_build_object('id', cam.id::text, 'name', cam.name, 'timezone', cam.timezone) ORDER BY cam.created_at)
                   FROM cameras cam WHERE cam.collector_id = ${collector}.id), '[]'::jsonb)))`;
}
