#!/usr/bin/env python3
"""Shapes and their areas."""

import math

# Unit used in every report.
UNIT = "cm"


@dataclass
class Circle:
    """A circle.

def not_a_function():  # inside the docstring
    """

    radius: float

    def area(self):
        return math.pi * self.radius ** 2

    # Async, for the sake of the example.
    async def describe(self):
        return f"circle of {self.radius} {UNIT}"


def total_area(shapes):
    # Sum of all areas.
    return sum(s.area() for s in shapes)
