// Binance's answers for ccxt's binance class: one spot market, and its 24-hour ticker.

export const exchangeInfo = {
  timezone: "UTC",
  serverTime: 1_700_000_000_000,
  rateLimits: [],
  exchangeFilters: [],
  symbols: [{
    symbol: "BTCUSDT", status: "TRADING", baseAsset: "BTC", baseAssetPrecision: 8, quoteAsset: "USDT", quotePrecision: 8,
    quoteAssetPrecision: 8, baseCommissionPrecision: 8, quoteCommissionPrecision: 8, orderTypes: ["LIMIT", "MARKET"],
    icebergAllowed: true, ocoAllowed: true, quoteOrderQtyMarketAllowed: true, isSpotTradingAllowed: true,
    isMarginTradingAllowed: false, permissions: ["SPOT"], permissionSets: [["SPOT"]],
    filters: [
      { filterType: "PRICE_FILTER", minPrice: "0.01", maxPrice: "1000000.00", tickSize: "0.01" },
      { filterType: "LOT_SIZE", minQty: "0.00001", maxQty: "9000.00", stepSize: "0.00001" },
    ],
  }],
};
export const ticker = { symbol: "BTCUSDT", lastPrice: "50000.00", bidPrice: "49999.00", askPrice: "50001.00", volume: "10", closeTime: 1_700_000_000_000 };

