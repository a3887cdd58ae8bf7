import { DataTable } from './data-table.tsx';
import { MODE_WORDS, VENDOR_WORDS, type CameraField } from '../client/camera-form.ts';

/*
 * The parts of a collector's view that client/cameras.ts and client/collector-state.ts fill:
 * its cameras with the add/edit form, and suspend/resume and replacement. The kind and mode
 * words come from client/camera-form.ts, so the page and the script say the same.
 */

/** A labelled input with its hint and its live error, tied together for screen readers. */
function Field(props: {
  name: CameraField;
  label: string;
  hint?: string;
  type?: string;
  inputmode?: 'numeric';
  autocomplete?: string;
  maxlength?: number;
  list?: string;
}) {
  const id = `camera-${props.name.replaceAll('_', '-')}`;
  return (
    <div class="field" data-field={props.name}>
      <label for={id}>{props.label}</label>
      <input
        id={id}
        name={props.name}
        type={props.type ?? 'text'}
        inputmode={props.inputmode}
        autocomplete={props.autocomplete ?? 'off'}
        maxlength={props.maxlength}
        list={props.list}
        aria-describedby={`${id}-hint ${id}-error`}
      />
      <p class="hint" id={`${id}-hint`}>
        {props.hint ?? ''}
      </p>
      <p class="field-error" id={`${id}-error`}></p>
    </div>
  );
}

export function CameraSection() {
  return (
    <section aria-labelledby="cameras-title">
      <h3 id="cameras-title">Cameras</h3>
      <p>Changes reach the box with its next heartbeat; it then answers for each camera (Last answer).</p>
      <DataTable id="cameras" caption="Cameras of the collector" hiddenCaption columns={['Name', 'Kind', 'Address', 'Last answer', 'Actions']} />
      <form id="camera-form" class="card" novalidate>
        <h4 id="camera-form-title">Add a camera</h4>
        <p id="camera-form-error" class="message" role="alert"></p>
        <Field name="name" label="Name" hint="As people will read it in alerts and search, e.g. Gate in." maxlength={100} />
        <label for="camera-vendor">Kind of camera</label>
        <select id="camera-vendor" name="vendor">
          <option value="vendor_a">{VENDOR_WORDS.vendor_a}</option>
          <option value="vendor_b">{VENDOR_WORDS.vendor_b}</option>
          <option value="snapshot">{VENDOR_WORDS.snapshot}</option>
        </select>
        <label for="camera-mode">How the reads arrive</label>
        <select id="camera-mode" name="mode">
          <option value="pull">{MODE_WORDS.vendor_a.pull}</option>
          <option value="push">{MODE_WORDS.vendor_a.push}</option>
        </select>
        <Field name="host" label="Address (host name or IP)" hint="As the box reaches it on the site's network." maxlength={253} />
        <Field name="port" label="Port" hint="Blank: 80." inputmode="numeric" maxlength={5} />
        <Field name="channel" label="Channel" hint="The traffic channel on an NVR. Blank: 1." inputmode="numeric" maxlength={3} />
        <Field
          name="snapshot_url"
          label="Snapshot URL (optional)"
          hint="Where the camera serves one JPEG: http(s)://… or a path on the address such as /cgi-bin/snapshot.cgi. Blank: the usual paths are tried."
          maxlength={2000}
        />
        <Field name="rtsp_url" label="RTSP URL (optional)" hint="rtsp://… read through ffmpeg on the box, instead of snapshots." maxlength={2000} />
        <Field name="frames_per_second" label="Frames a second" hint="0.2 to 10. Blank: 4." maxlength={4} />
        <Field name="region" label="Plate region" hint="The plate formats to expect: us, eu or br. Blank: any plate shape." maxlength={8} />
        <Field name="change_threshold" label="Change threshold" hint="How much a frame must differ to be read, 0 to 255. Blank: 4." maxlength={5} />
        <Field
          name="passage_gap_ms"
          label="Passage gap (ms)"
          hint="A car's passage ends this long after its plate was last read. Blank: 3000."
          inputmode="numeric"
          maxlength={5}
        />
        <Field name="username" label="Username" maxlength={100} />
        <Field name="password" label="Password" type="password" autocomplete="new-password" maxlength={200} />
        <Field name="token" label="API key" type="password" autocomplete="new-password" maxlength={500} />
        <Field name="camera_ids" label="Console camera ids (optional)" hint="Separated by commas. Blank: every camera of the console." />
        <Field name="timezone" label="Time zone of the camera's clock" hint="For example Europe/London. Blank: UTC." maxlength={64} list="time-zones" />
        <datalist id="time-zones"></datalist>
        <label class="check">
          <input type="checkbox" id="camera-enabled" name="enabled" checked /> Running (untick to keep it off until it is installed)
        </label>
        <div class="buttons">
          <button type="submit" id="camera-submit">
            Add camera
          </button>
          <button type="button" id="camera-cancel" class="secondary" hidden>
            Cancel
          </button>
        </div>
      </form>
    </section>
  );
}

/**
 * The hub certificate's SHA-256 beside the claim codes, written by client/hub-certificate.ts:
 * the installer types it on the appliance's setup page (or is told the hub serves plain HTTP).
 */
export function HubCertificateLine() {
  return <p class="hint hub-certificate" data-hub-certificate aria-live="polite"></p>;
}

export function SiteStateSection() {
  return (
    <div id="site-state">
      <section class="card" aria-labelledby="suspend-title">
        <h3 id="suspend-title">Uploads</h3>
        <p id="state-line" class="status"></p>
        <form id="suspend-form">
          <p>
            Suspending stops the hub from accepting this site's readings. The box keeps reading and keeps them; they are sent when you resume. Heartbeats,
            configuration and wipe keep working.
          </p>
          <label for="suspend-reason">Reason (optional, kept in the audit log)</label>
          <input id="suspend-reason" maxlength={500} autocomplete="off" />
          <button type="submit">Suspend uploads</button>
        </form>
        <button type="button" id="resume" hidden>
          Resume uploads
        </button>
      </section>
      <section class="card" aria-labelledby="replace-title">
        <h3 id="replace-title">Replace this box</h3>
        <p>
          For a box that died or was stolen. You get a claim code to enter on the new box's setup page; the new box takes over this collector: the same site,
          cameras (their logins are sent to it sealed), history and hash chain.
        </p>
        <p>
          <strong>The old box keeps working until the new box is claimed. From then on the old box is cut off:</strong> its keys are refused and nothing it
          sends is stored.
        </p>
        <HubCertificateLine />
        <p id="replace-pending" class="status" hidden></p>
        <div class="buttons">
          <button type="button" id="replace">
            Replace this box
          </button>
          <button type="button" id="replace-cancel" class="secondary" hidden>
            Cancel replacement
          </button>
        </div>
      </section>
    </div>
  );
}
