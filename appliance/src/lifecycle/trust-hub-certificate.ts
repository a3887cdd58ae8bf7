import { trustHubCertificatePayloadSchema } from '@alpr/shared/protocol/certificate-pin';
import type { CommandAckRequest, SignedCommand } from '@alpr/shared/protocol/collector';
import type { CommandRunnerDeps } from './ports.ts';

/**
 * trust_hub_certificate (docs/security.md "Rotating the hub certificate"): the hub announces,
 * in a command signed with its key, the certificate it will switch to. The appliance stores
 * it as the next pin (sealed) and from then on accepts the current and the next certificate;
 * the first connection that meets the next one drops the old (hub-pins.ts). A redelivery
 * after a lost ack changes nothing and says so.
 */
export async function runTrustHubCertificate(deps: CommandRunnerDeps, command: SignedCommand): Promise<CommandAckRequest> {
  const payload = trustHubCertificatePayloadSchema.safeParse(command.payload);
  if (!payload.success) return { status: 'failed', detail: 'payload is not { sha256 } with a SHA-256 fingerprint' };
  if (!deps.hubPins) return { status: 'failed', detail: 'this appliance keeps no hub certificate pins' };
  const { sha256 } = payload.data;
  const result = await deps.hubPins.announce(sha256);
  deps.log.info({ command_id: command.id, certificate_sha256: sha256, result }, 'hub certificate announced');
  const details = {
    added: `will accept the hub certificate SHA-256 ${sha256} as well as the current one until the hub switches to it`,
    already_next: `SHA-256 ${sha256} was already announced`,
    already_current: `SHA-256 ${sha256} is already the pinned certificate`,
    not_pinned: `not pinned: this appliance checks the hub certificate against public CAs, nothing to store`,
  } as const;
  return { status: 'success', detail: details[result] };
}
