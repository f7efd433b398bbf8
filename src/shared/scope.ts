// The merchant and environment every record belongs to: every query of a merchant's data is confined to one.
export type Environment = 'live' | 'test';

export interface MerchantScope {
  merchantId: string;
  environment: Environment;
}
