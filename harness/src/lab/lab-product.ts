/**
 * Tailcam started inside the network lab, as `npm start` starts it: on the public segment
 * (`stage`, listening on 198.18.1.2) or on the cloud VM behind 1:1 NAT (`vm`, listening on its
 * private 198.19.3.2 and reached at 198.18.3.2). Viewers and publishers in the lab use
 * `publicUrl`; this process reaches the API and the stage's own port through loopback bridges, so
 * Product's readiness, stop and control routes work as on loopback.
 */
import { Product, type ProductOptions } from '../product';
import { LAB_ADDRESSES } from './lab-topology';
import type { NetworkLab } from './network-lab';

export type ProductHost = 'stage' | 'vm';

export interface LabProduct {
  product: Product;
  /** The URL a browser or client in the lab opens. */
  publicUrl: string;
}

export async function labProduct(
  lab: NetworkLab,
  host: ProductHost,
  options: ProductOptions & { stagePort: number },
): Promise<LabProduct> {
  const listenAddress = host === 'stage' ? LAB_ADDRESSES.stage : LAB_ADDRESSES.vmPrivate;
  const publicAddress = host === 'stage' ? LAB_ADDRESSES.stage : LAB_ADDRESSES.vmPublic;
  const [baseUrl, stageUrl] = await Promise.all([
    lab.loopbackUrl(host, listenAddress, options.port),
    lab.loopbackUrl(host, '127.0.0.1', options.stagePort),
  ]);
  const publicUrl = `http://${publicAddress}:${options.port}`;
  const product = new Product({
    ...options,
    env: { PUBLIC_URL: publicUrl, ...options.env },
    network: {
      command: (command, args) => lab.command(host, command, args),
      host: listenAddress,
      baseUrl,
      stageUrl,
    },
  });
  return { product, publicUrl };
}
