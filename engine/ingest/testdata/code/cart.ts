import { Item } from "./item";

/** A line in the cart. */
export interface Line {
  item: Item;
  quantity: number;
}

/**
 * Cart holds the lines a customer picked.
 * function notADeclaration() {}
 */
export class Cart {
  private lines: Line[] = [];

  constructor(private readonly currency: string) {}

  // add puts one more of item in the cart.
  add(item: Item): void {
    const line = this.lines.find((l) => l.item.id === item.id);
    if (line) {
      line.quantity++;
    } else {
      this.lines.push({ item, quantity: 1 });
    }
  }

  @memoize()
  async total(): Promise<number> {
    return this.lines.reduce((sum, l) => sum + l.item.price * l.quantity, 0);
  }
}

export const formatPrice = (cents: number): string => `${(cents / 100).toFixed(2)}`;

export default function emptyCart(): Cart {
  return new Cart("EUR");
}
