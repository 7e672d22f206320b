"""promptfoo's exec provider: prints an answer to the prompt in argv[1], with no network."""

import sys

ANSWERS = {
    "max purchase": (
        "Purchases up to $500 need no approval; above $500 your manager must pre-approve."
    ),
    "how many weeks is maternity": "Maternity leave is 16 weeks (4 months).",
    "credit card statements": (
        "No, credit card statements are not accepted; itemized receipts are required."
    ),
    "are paid": "The first 8 weeks are paid at 100% of base salary.",
}

if __name__ == "__main__":
    prompt = sys.argv[1].lower()
    print(next((text for key, text in ANSWERS.items() if key in prompt), "I don't know."))
